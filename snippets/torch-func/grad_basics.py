import torch
from torch.func import grad, grad_and_value


def f(x):
    return (x**2).sum()  # a function of tensors that returns a scalar tensor


x = torch.tensor([1.0, 2.0, 3.0])  # a plain tensor: no requires_grad needed
df = grad(f)  # a new function: it computes the gradient of f
print(df(x))  # tensor([2., 4., 6.]) -> 2 * x
print(grad_and_value(f)(x))  # (tensor([2., 4., 6.]), tensor(14.))

try:
    grad(torch.sin)(x)  # sin(x) has 3 elements: not a scalar
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: ...Expected f(*args) to return a scalar Tensor...jacrev...


def g(a, b):
    return (a * b).sum()


a = torch.tensor([1.0, 2.0])
b = torch.tensor([10.0, 20.0])
print(grad(g)(a, b))  # tensor([10., 20.]) -> argnums=0: d/da only, which is b
print(grad(g, argnums=(0, 1))(a, b))  # -> a tuple, one gradient per argnum
#> (tensor([10., 20.]), tensor([1., 2.]))


def h(x):
    y = x.sin()
    return y.sum(), y  # (what to differentiate, anything else to return)


dh, y = grad(h, has_aux=True)(torch.tensor([0.0, 1.0]))
print(dh, y)  # tensor([1.0000, 0.5403]) tensor([0.0000, 0.8415]) -> cos, sin
