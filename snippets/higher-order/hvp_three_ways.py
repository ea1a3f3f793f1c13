# docexec: figure=none
import torch
from torch.func import grad, jvp


def f(x):  # R^3 -> R, with a Hessian that is not diagonal
    return x[0] ** 2 * x[1] + x[1] * x[2] ** 3


x = torch.tensor([1.0, 2.0, 3.0])
v = torch.tensor([1.0, 0.5, -1.0])

# 1. reverse over reverse: differentiate the gradient's dot product with v
x1 = x.clone().requires_grad_()
(g,) = torch.autograd.grad(f(x1), x1, create_graph=True)
(hvp_double,) = torch.autograd.grad(g @ v, x1)
print(hvp_double)  # tensor([  5.0000, -25.0000, -22.5000])

# 2. forward over reverse: push the tangent v through the gradient function
_, hvp_func = jvp(grad(f), (x,), (v,))
print(hvp_func)  # tensor([  5.0000, -25.0000, -22.5000])

# 3. the ready-made function
_, hvp_functional = torch.autograd.functional.hvp(f, x, v)
print(hvp_functional)  # tensor([  5.0000, -25.0000, -22.5000])

# all three against the explicit 3 x 3 Hessian
H = torch.autograd.functional.hessian(f, x)
print(H)
#> tensor([[ 4.,  2.,  0.],
#>         [ 2.,  0., 27.],
#>         [ 0., 27., 36.]])
hvps = [hvp_double, hvp_func, hvp_functional]
print([torch.allclose(h, H @ v) for h in hvps])  # [True, True, True]
