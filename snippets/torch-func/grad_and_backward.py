import torch
from torch.func import grad


def f(x):
    return (x**3).sum()


x = torch.tensor([1.0, 2.0], requires_grad=True)  # a leaf, as in chapter 04
g = grad(f)(x)
print(g)  # tensor([ 3., 12.], grad_fn=<MulBackward0>) -> 3 x^2, recorded
print(x.grad)  # None -> grad returned the gradient; it filled no .grad

g.sum().backward()  # an ordinary backward, outside the transform
print(x.grad)  # tensor([ 6., 12.]) -> d/dx of sum(3 x^2) is 6 x

x.grad = None
f(x).backward()  # and f itself, called outside grad, is ordinary autograd
print(x.grad)  # tensor([ 3., 12.]) -> the same gradient grad(f) returned
