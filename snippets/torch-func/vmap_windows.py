import textwrap

import torch
from torch.func import vmap

X = torch.arange(12.0).reshape(2, 6)  # 2 samples of 6 values
starts = torch.tensor([1, 3])  # where each sample's window begins


def window(x, i):
    return x[i : i + 2]  # a slice: its bounds must be Python integers


# one sample at a time, a tensor start is converted to an integer
print(window(X[0], starts[0]))  # tensor([1., 2.])
try:
    vmap(window)(X, starts)  # i holds one start per sample
except RuntimeError as e:
    print(textwrap.fill(f"{type(e).__name__}: {e}", width=72))
    #> RuntimeError: vmap: It looks like you're calling .item() on a Tensor. We
    #> don't support vmap over calling .item() on a Tensor, please try to
    #> rewrite what you're doing with other operations. If error is occurring
    #> somewhere inside PyTorch internals, please file a bug report.


def window_by_index(x, i):
    return x[i + torch.arange(2)]  # a tensor of positions instead


print(vmap(window_by_index)(X, starts))
#> tensor([[ 1.,  2.],
#>         [ 9., 10.]])
