import torch
from torch.func import grad, vmap


def f(x):
    # is x of class torch.Tensor? and the first line of how it prints
    print(type(x) is torch.Tensor, repr(x).splitlines()[0])
    #> True tensor([1., 1., 1.])
    #> True GradTrackingTensor(lvl=1, value=
    #> True BatchedTensor(lvl=1, bdim=0, value=
    return (x**2).sum()


x = torch.ones(3)
f(x)  # called directly
grad(f)(x)
vmap(f)(torch.ones(2, 3))
