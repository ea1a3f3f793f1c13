# docexec: figure=tangents
import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([0.0, 1.0])  # the point
v = torch.tensor([1.0, 1.0])  # the direction: the tangent x starts with

with fwAD.dual_level():
    dual_x = fwAD.make_dual(x, v)
    y = dual_x.sin()  # value sin x, tangent cos(x) * v
    z = y**2  # value y**2, tangent 2 * y * (the tangent of y)
    jvp = fwAD.unpack_dual(z).tangent
print(jvp)  # tensor([0.0000, 0.9093]) -> 2 sin(x) cos(x) v, J v in one pass
