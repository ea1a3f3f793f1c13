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

w = torch.full((3,), 2.0)  # from the enclosing scope


def g(x, b):  # b is shared by every sample: in_dims=None below
    for t in (x * w, b, w):  # computed from x; not mapped; from outside
        print(repr(t).splitlines()[0])
        #> BatchedTensor(lvl=1, bdim=0, value=
        #> tensor([0., 0., 0.])
        #> tensor([2., 2., 2.])
    return x * w + b


vmap(g, in_dims=(0, None))(torch.ones(2, 3), torch.zeros(3))
