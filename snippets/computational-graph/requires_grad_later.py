import torch

a = torch.ones(2, 2)  # made without tracking
print(a.requires_grad)  # False
same = a.requires_grad_(True)  # the trailing underscore: changes a itself
print(same is a)  # True -> and returns a, so calls can be chained
print(a.requires_grad, a.is_leaf)  # True True -> still a leaf, now tracked

b = (a * 3).sum()  # a graph rooted at the leaf a
print(b)  # tensor(12., grad_fn=<SumBackward0>)
