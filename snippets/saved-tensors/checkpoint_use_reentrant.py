import warnings

import torch
from torch.utils.checkpoint import checkpoint

# a weight used inside the block
w = torch.tensor([1.0, 2.0], requires_grad=True)
# the block's input does not require grad, as with raw data
x = torch.tensor([0.5, -0.5])


def block(t):
    return (t * w).sin()


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    y = checkpoint(block, x)  # use_reentrant left out
for warning in caught:
    print(warning.message)
    #> torch.utils.checkpoint: the use_reentrant parameter should be passed ...
    #> None of the inputs have requires_grad=True. Gradients will be None
# the result is cut off from w: w would never get a gradient
print(y.requires_grad)  # False

y = checkpoint(block, x, use_reentrant=False)
print(y.requires_grad)  # True -> the recommended variant keeps w in the graph
y.sum().backward()
print(w.grad)  # tensor([ 0.4388, -0.2702])
