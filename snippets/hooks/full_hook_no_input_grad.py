import textwrap
import warnings

import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)  # a first layer: its input is data


def show(module, grad_input, grad_output):
    print("grad_input:", grad_input)  # grad_input: (None,)


layer.register_full_backward_hook(show)
x = torch.randn(4, 3)  # data: does not require grad

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = layer(x)
    out.sum().backward()
for warning in caught:
    text = f"{warning.category.__name__}: {warning.message}"
    print(textwrap.fill(text, width=72, break_long_words=False))
    #> UserWarning: Full backward hook is firing when gradients are computed
    #> with respect to module outputs since no inputs require gradients. See
    #> https://docs.pytorch.org/...#torch.nn.Module.register_full_backward_hook
    #> for more details.
print(layer.weight.grad.shape)  # torch.Size([2, 3]) -> still computed
