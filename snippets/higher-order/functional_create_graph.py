# docexec: figure=none
import torch
from torch.autograd.functional import hessian


def s(x):
    return (x**3).sum()


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)

H = hessian(s, x)  # create_graph=False: a plain result, even for this x
print(H.requires_grad)  # False

H = hessian(s, x, create_graph=True)  # the result stays in the graph
print(H.grad_fn is not None)  # True
# so it can be differentiated again: d trace(H) / dx, a third derivative
(third,) = torch.autograd.grad(H.trace(), x)
print(third)  # tensor([6., 6., 6.]) -> trace(H) = 6 * sum(x)
