import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0])
v = torch.tensor([1.0, 0.5])

with fwAD.dual_level():
    d = fwAD.make_dual(x, v)
    y = d**3 + 2 * d
    primal, tangent = fwAD.unpack_dual(y)
    print(primal)  # tensor([ 3., 12.])
    print(tangent)  # tensor([5., 7.])
    print(y.requires_grad, y.grad_fn)  # False None
