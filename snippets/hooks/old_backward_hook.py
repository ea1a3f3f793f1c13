# docexec: figure=none
import warnings

import torch
from torch import nn

torch.manual_seed(0)


class Block(nn.Module):
    """Three operations inside one module: linear, relu, times 2."""

    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(3, 2)

    def forward(self, x):
        return self.linear(x).relu() * 2


def shapes(tensors):
    return [None if t is None else tuple(t.shape) for t in tensors]


def old_hook(module, grad_input, grad_output):
    # the inputs of the module's last operation (* 2), not the module's x
    print("register_backward_hook:     ", shapes(grad_input))
    #> register_backward_hook:      [(4, 2), None]


def full_hook(module, grad_input, grad_output):
    # the gradient with respect to the module's input x
    print("register_full_backward_hook:", shapes(grad_input))
    #> register_full_backward_hook: [(4, 3)]


x = torch.randn(4, 3, requires_grad=True)  # the module's input: shape (4, 3)
old, full = Block(), Block()
old.register_backward_hook(old_hook)  # deprecated
full.register_full_backward_hook(full_hook)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old(x).sum().backward()
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
    #> FutureWarning: ...non-full backward hook...missing some grad_input...
full(x).sum().backward()
