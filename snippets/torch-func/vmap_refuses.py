import torch
from torch.func import vmap

X = torch.tensor([[1.0, 2.0], [-3.0, 1.0]])  # 2 samples


def scale_by_total(x):
    return x / x.sum().item()  # .item(): a Python number per sample


try:
    vmap(scale_by_total)(X)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: vmap: It looks like you're calling .item() on a Tensor...


def flip_if_negative(x):
    if x.sum() > 0:  # Python `if` on a value that differs per sample
        return x
    return -x


try:
    vmap(flip_if_negative)(X)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: vmap: ...a Tensor in some data-dependent control flow...


def flip_if_negative_where(x):  # the branch as a tensor operation
    return torch.where(x.sum() > 0, x, -x)


flipped = vmap(flip_if_negative_where)(X)
print(flipped)  # -> the second sample flipped
#> tensor([[ 1.,  2.],
#>         [ 3., -1.]])
loop = torch.stack([flip_if_negative(x) for x in X])  # one sample at a time
print(torch.equal(flipped, loop))  # True -> the `if` was fine in a loop
