import torch
import torch.autograd.forward_ad as fwAD


def directional(f, x, v):
    """How f(x) changes when x moves along v."""
    with fwAD.dual_level():
        out = f(fwAD.make_dual(x, v))
        return fwAD.unpack_dual(out).tangent  # read inside the level


x = torch.tensor([0.0, 1.0])
v = torch.tensor([1.0, 1.0])
print(directional(torch.sin, x, v))  # tensor([1.0000, 0.5403])
