import math

import torch

# Looks like a weight matrix, but the division is an operation autograd records.
w = torch.randn(784, 10, requires_grad=True) / math.sqrt(784)
# Shape and flag look right ...
print(w.shape, w.requires_grad)  # torch.Size([784, 10]) True
# ... but w is the output of a division.
print(w.is_leaf, type(w.grad_fn).__name__)  # False DivBackward0

try:
    torch.optim.SGD([w], lr=0.1)
except ValueError as error:
    print(f"ValueError: {error}")
    #> ValueError: can't optimize a non-leaf Tensor

# Fix: finish computing the values first, then switch tracking on.
w = (torch.randn(784, 10) / math.sqrt(784)).requires_grad_()
print(w.is_leaf, w.grad_fn)  # True None -> a leaf again
optimizer = torch.optim.SGD([w], lr=0.1)
print(optimizer.param_groups[0]["params"][0] is w)  # True -> accepted
