import torch


def f(x):
    return (x**3).sum()


x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([1.0, 1.0])

(g,) = torch.autograd.grad(f(x), x, create_graph=True)  # recorded
(hvp,) = torch.autograd.grad(g @ v, x)
print(hvp)  # tensor([ 6., 12.])
del x, g  # no figure for this exercise
