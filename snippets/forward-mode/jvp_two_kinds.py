import torch
import torch.autograd.forward_ad as fwAD
from torch.autograd.functional import jvp as functional_jvp
from torch.func import jvp as func_jvp

backward_passes = 0


def count_backward(grad):  # a tensor hook runs once per backward pass
    global backward_passes
    backward_passes += 1


def f(x):
    h = x.sin()
    if h.requires_grad:
        h.register_hook(count_backward)
    return h * x


x = torch.tensor([1.0, 2.0])
v = torch.tensor([1.0, 1.0])

print(functional_jvp(f, x, v)[1], backward_passes)  # tensor([1.3818, 0.0770]) 1

backward_passes = 0
print(func_jvp(f, (x,), (v,))[1], backward_passes)  # tensor([1.3818, 0.0770]) 0

with fwAD.dual_level():
    tangent = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
print(tangent, backward_passes)  # tensor([1.3818, 0.0770]) 0
