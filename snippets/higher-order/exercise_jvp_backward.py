import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([1.0, 1.0])

with fwAD.dual_level():
    y = (fwAD.make_dual(x, v) ** 3).sum()
    jvp = fwAD.unpack_dual(y).tangent
    print(jvp)  # tensor(15., grad_fn=<SumBackward0>)
    jvp.backward()
print(x.grad)  # tensor([ 6., 12.])
