import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0, 3.0])  # the point: no requires_grad anywhere
v = torch.tensor([1.0, 0.0, 0.0])  # the tangent: a direction to move x in

with fwAD.dual_level():
    dual_x = fwAD.make_dual(x, v)  # x and v travel together from here on
    print(dual_x)  # tensor([1., 2., 3.], tangent=tensor([1., 0., 0.]))
    y = dual_x**2  # every operation computes a value and a tangent
    primal, tangent = fwAD.unpack_dual(y)
    print(primal)  # tensor([1., 4., 9.]) -> x**2
    print(tangent)  # tensor([2., 0., 0.]) -> 2 * x * v
    print(y.requires_grad, y.grad_fn)  # False None
