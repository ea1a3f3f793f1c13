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
    # x + 1 hands v on as it is: nothing recorded for its tangent
    print(fwAD.unpack_dual(fwAD.make_dual(x, v) + 1).tangent.grad_fn)  # None
    # 3 * x: a product's tangent formula uses x, so it is recorded
    print(fwAD.unpack_dual(3 * fwAD.make_dual(x, v)).tangent.grad_fn)
    #> <AddBackward0 object at 0x…>
    tangent = fwAD.unpack_dual(y).tangent
    tangent.sum().backward()  # the JVP, differentiated as it is
print(x.grad)  # tensor([6., 6.]) -> d/dx of sum(3 * x**2 * v) = 6 * x * v
