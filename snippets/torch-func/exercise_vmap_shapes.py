import torch
from torch.func import vmap


def apply(x, w):
    print("inside:", tuple(x.shape), tuple(w.shape))
    #> inside: (3,) (3, 2)
    #> inside: (3,) (3, 2)
    #> inside: (3,) (3, 2)
    return x @ w


W = torch.ones(3, 2)
print(vmap(apply, in_dims=(0, None))(torch.ones(5, 3), W).shape)
#> torch.Size([5, 2])
print(vmap(apply, in_dims=(1, None))(torch.ones(3, 4), W).shape)
#> torch.Size([4, 2])
print(vmap(apply, in_dims=(0, None), out_dims=1)(torch.ones(5, 3), W).shape)
#> torch.Size([2, 5])
