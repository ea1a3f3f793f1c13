import torch
from torch.func import vmap


def shrink(x):
    norm = x.norm()
    # both branches are computed; where picks one per sample
    return torch.where(norm > 1, x / norm, x)


X = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
print(vmap(shrink)(X))
#> tensor([[0.6000, 0.8000],
#>         [0.3000, 0.4000]])
