import torch
from torch.func import hessian, jacfwd, jacrev


def f(x):  # x0^2 * x1 + x1^3
    return x[0] ** 2 * x[1] + x[1] ** 3


x = torch.tensor([1.0, 2.0])
H = hessian(f)(x)
print(H)  # -> [[2*x1, 2*x0], [2*x0, 6*x1]]
#> tensor([[ 4.,  2.],
#>         [ 2., 12.]])
print(torch.equal(H, jacfwd(jacrev(f))(x)))  # True -> what hessian is made of
print(torch.equal(H, jacrev(jacrev(f))(x)))  # True -> another route, same H
