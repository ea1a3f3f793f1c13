import torch
from torch.autograd import functional as AF


def f(x):  # R^3 -> R^3
    return x**2 * x.flip(0)


def s(x):  # R^3 -> R
    return (x**3).sum()


x = torch.tensor([1.0, 2.0, 3.0])
ones = torch.ones(3)

print(AF.jacobian(f, x))  # -> the whole 3 x 3 matrix J
#> tensor([[ 6.,  0.,  1.],
#>         [ 0., 12.,  0.],
#>         [ 9.,  0.,  6.]])
# vjp and jvp return (f(x), product): v^T J sums columns, J v sums rows
print(AF.vjp(f, x, ones))  # (tensor([3., 8., 9.]), tensor([15., 12.,  7.]))
print(AF.jvp(f, x, ones))  # (tensor([3., 8., 9.]), tensor([ 7., 12., 15.]))

print(AF.hessian(s, x))  # -> diag(6 * x)
#> tensor([[ 6.,  0.,  0.],
#>         [ 0., 12.,  0.],
#>         [ 0.,  0., 18.]])
# hvp and vhp return (s(x), product); a symmetric Hessian makes them equal
print(AF.hvp(s, x, ones))  # (tensor(36.), tensor([ 6., 12., 18.]))
print(AF.vhp(s, x, ones))  # (tensor(36.), tensor([ 6., 12., 18.]))
