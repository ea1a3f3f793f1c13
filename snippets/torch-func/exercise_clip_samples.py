import torch
from torch.func import vmap


def shrink(x):  # scale a sample down to norm 1 if it is longer
    norm = x.norm()
    if norm > 1:
        return x / norm
    return x


X = torch.tensor([[3.0, 4.0], [0.3, 0.4]])
try:
    shrunk = vmap(shrink)(X)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: vmap: ...a Tensor in some data-dependent control flow...
