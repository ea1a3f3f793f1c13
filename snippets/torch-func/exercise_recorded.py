import torch
from torch.func import grad


def f(x):
    return x.sin().sum()


x = torch.tensor([0.0, 1.0], requires_grad=True)
g = grad(f)(x)
print(g)  # tensor([1.0000, 0.5403], grad_fn=<MulBackward0>)
print(x.grad)  # None

g_plain = grad(f)(x.detach())
print(g_plain)  # tensor([1.0000, 0.5403])
