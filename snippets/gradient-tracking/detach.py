import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
d = w.detach()
print(d.requires_grad, d.is_leaf)  # False True -> a leaf outside every graph
print(d.data_ptr() == w.data_ptr())  # True -> sharing w's memory: no copy
# Add clone() for an independent copy:
print(w.detach().clone().data_ptr() == w.data_ptr())  # False

loss = (w * w.detach()).sum()  # to autograd, the second factor is a constant
loss.backward()
# w, not 2w: no gradient flowed through the detached factor.
print(w.grad)  # tensor([1., 2.])
