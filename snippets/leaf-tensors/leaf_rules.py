import torch

data = torch.tensor([1.0, 2.0])  # requires_grad=False
print(data.is_leaf, data.grad_fn)  # True None -> no tracking: a leaf by convention

scaled = data * 3  # an operation, but on untracked inputs only
print(scaled.requires_grad, scaled.is_leaf)  # False True -> not recorded, so still a leaf

w = torch.tensor([0.5, -1.0], requires_grad=True)  # created by you, tracked
print(w.is_leaf, w.grad_fn)  # True None -> a leaf that requires grad: the kind that gets .grad

out = w * data  # produced by a recorded operation
print(out.is_leaf, type(out.grad_fn).__name__)  # False MulBackward0 -> a non-leaf: it has a grad_fn
