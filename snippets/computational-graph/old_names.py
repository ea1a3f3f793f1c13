import torch

t = torch.tensor([1.0, 2.0])
# Code written for PyTorch before 0.4 wraps tensors in Variable.
v = torch.autograd.Variable(t, requires_grad=True)
print(type(v))  # <class 'torch.Tensor'> -> the wrapper returns a plain Tensor
print(v.requires_grad, v.is_leaf)  # True True -> an ordinary leaf
print(v is t, v.data_ptr() == t.data_ptr())  # False True
# -> a new tensor object, sharing t's memory

# A volatile input used to switch recording off. Today volatile only warns.
volatile = torch.autograd.Variable(t, volatile=True)
print((volatile * v).requires_grad)  # True -> the product is recorded anyway
with torch.no_grad():  # what replaced volatile
    print((volatile * v).requires_grad)  # False

# .creator became .grad_fn.
print(hasattr(v * 2, "creator"), type((v * 2).grad_fn).__name__)
#> False MulBackward0
