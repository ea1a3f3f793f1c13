import torch

data = torch.tensor([1.0, 2.0])  # requires_grad=False
print(data.is_leaf, data.grad_fn)  # True None -> a leaf by convention

scaled = data * 3  # an operation, but on untracked inputs only
print(scaled.requires_grad, scaled.is_leaf)  # False True -> not recorded

w = torch.tensor([0.5, -1.0], requires_grad=True)  # created by you, tracked
# A leaf that requires grad: the kind that gets .grad.
print(w.is_leaf, w.grad_fn)  # True None

out = w * data  # produced by a recorded operation
# A non-leaf: it has a grad_fn.
print(out.is_leaf, type(out.grad_fn).__name__)  # False MulBackward0
