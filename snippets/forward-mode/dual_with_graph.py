import torch
import torch.autograd.forward_ad as fwAD

x = torch.tensor([1.0, 2.0], requires_grad=True)  # this time x requires grad
v = torch.tensor([1.0, 0.5])

with fwAD.dual_level():
    y = fwAD.make_dual(x, v) ** 3
    # a grad_fn for the primal x**3, and one for the tangent 3 * x**2 * v
    print(y)
    #> tensor([1., 8.], grad_fn=<PowBackward0>,
    #>        tangent=tensor([3., 6.], grad_fn=<MulBackward0>))
    tangent = fwAD.unpack_dual(y).tangent
    tangent.sum().backward()  # the JVP, differentiated as it is
print(x.grad)  # tensor([6., 6.]) -> d/dx of sum(3 * x**2 * v) = 6 * x * v
