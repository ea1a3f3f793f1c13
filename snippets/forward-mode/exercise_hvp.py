import torch


def f(x):
    return (x**3).sum()


x = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([1.0, 1.0])

(g,) = torch.autograd.grad(f(x), x)  # the gradient, 3 x**2
try:
    (hvp,) = torch.autograd.grad(g @ v, x)  # meant: H v
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: element 0 of tensors does not require grad and does not...
del x  # no figure for this exercise
