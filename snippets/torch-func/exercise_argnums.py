import torch
from torch.func import grad, grad_and_value


def f(a, b):
    return (a * b**2).sum()


a = torch.tensor([1.0, 2.0])
b = torch.tensor([3.0, 4.0])
print(grad(f)(a, b))  # tensor([ 9., 16.])
print(grad(f, argnums=1)(a, b))  # tensor([ 6., 16.])
print(grad_and_value(f)(a, b))  # (tensor([ 9., 16.]), tensor(41.))


def g(a):
    y = a**2
    return y.sum(), y.max()


print(grad(g, has_aux=True)(torch.tensor([1.0, -3.0])))
#> (tensor([ 2., -6.]), tensor(9.))
