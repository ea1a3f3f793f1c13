import torch
from torch.func import vmap


def add_noise(x):
    return x + torch.rand(2)  # a random draw inside the function


X = torch.zeros(3, 2)  # 3 samples
try:
    vmap(add_noise)(X)  # randomness="error" is the default
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: vmap: called random operation...'same' or 'different'...

torch.manual_seed(0)
print(vmap(add_noise, randomness="different")(X))  # -> a new draw per sample
#> tensor([[0.4963, 0.7682],
#>         [0.0885, 0.1320],
#>         [0.3074, 0.6341]])
print(vmap(add_noise, randomness="same")(X))  # -> one draw, shared by all
#> tensor([[0.4901, 0.8964],
#>         [0.4901, 0.8964],
#>         [0.4901, 0.8964]])
