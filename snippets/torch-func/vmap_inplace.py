import torch
from torch.func import vmap

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])  # 2 samples


def pad(v):  # (3,) -> (5,), zeros at the end
    out = torch.zeros(5)  # a new tensor: not batched
    out[:3] = v  # in place: write the batched v into it
    return out


try:
    vmap(pad)(X)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: vmap: inplace arithmetic...`self` not being vmapped over...


def pad_fixed(v):
    out = v.new_zeros(5)  # made from v: batched like v
    out[:3] = v
    return out


print(vmap(pad_fixed)(X))
#> tensor([[1., 2., 3., 0., 0.],
#>         [4., 5., 6., 0., 0.]])
