import torch

a = torch.ones(2, 2)  # made without tracking
print(a.requires_grad)  # False
a.requires_grad_(True)  # the trailing underscore: changes a itself, in place
print(a.requires_grad, a.is_leaf)  # True True -> still a leaf, now tracked

b = (a * 3).sum()  # a graph rooted at the leaf a
print(b)  # tensor(12., grad_fn=<SumBackward0>)
