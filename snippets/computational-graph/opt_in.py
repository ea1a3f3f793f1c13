import torch

# Ask for tracking when the tensor is made.
x = torch.tensor([2.0, 3.0], requires_grad=True)
print(x.requires_grad)  # True -> operations that use x will be recorded
print(x.grad_fn)  # None -> no recorded operation produced x
print(x.is_leaf)  # True -> x is a leaf of any graph built from it

w = torch.tensor([4.0])  # requires_grad is False unless you ask for it
print(w.requires_grad)  # False -> nothing done to w alone is recorded
