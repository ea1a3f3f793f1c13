import torch
import torch.autograd.forward_ad as fwAD


def f(x):  # R^3 -> R, the function of the three-ways example
    return x[0] ** 2 * x[1] + x[1] * x[2] ** 3


def reverse_over_forward(f, x, v):
    """The JVP of f along v, a tensor with a graph, then its gradient."""
    with fwAD.dual_level():
        jvp = fwAD.unpack_dual(f(fwAD.make_dual(x, v))).tangent
        print(jvp)  # tensor(-36., grad_fn=<AddBackward0>) -> slope of f along v
        (hvp,) = torch.autograd.grad(jvp, x)  # no create_graph
    return hvp


def forward_over_reverse(f, x, v):
    """The gradient of f at a dual x: the backward pass runs on dual
    tensors, so the gradient it returns carries a tangent of its own."""
    with fwAD.dual_level():
        y = f(fwAD.make_dual(x, v))
        (g,) = torch.autograd.grad(y, x)  # no create_graph
        grad_f, hvp = fwAD.unpack_dual(g)
    print(grad_f)  # tensor([ 4., 28., 54.]) -> the gradient of f
    return hvp


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
v = torch.tensor([1.0, 0.5, -1.0])

hvp_rev_fwd = reverse_over_forward(f, x, v)
print(hvp_rev_fwd)  # tensor([  5.0000, -25.0000, -22.5000])
hvp_fwd_rev = forward_over_reverse(f, x, v)
print(hvp_fwd_rev)  # tensor([  5.0000, -25.0000, -22.5000])

H = torch.autograd.functional.hessian(f, x)
print(torch.allclose(hvp_rev_fwd, H @ v), torch.allclose(hvp_fwd_rev, H @ v))
#> True True
