import warnings

import torch
from torch.utils.checkpoint import checkpoint

w = torch.tensor([1.0, 2.0], requires_grad=True)  # a weight
batch = torch.tensor([0.5, -0.5])  # raw data: requires no grad


def layer(t):
    return (t * w).sin()


with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # lost in a long training log
    out = checkpoint(layer, batch)  # to save memory
try:
    out.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: element 0 of tensors does not require grad and does not...
print(w.grad)  # None
