import torch

x = torch.tensor(3.0, requires_grad=True)  # a leaf that requires grad
y = x * 2  # recorded: y gets a grad_fn
z = y + 1  # recorded again

# The repr names the Node that produced y.
print(y)  # tensor(6., grad_fn=<MulBackward0>)
print(z)  # tensor(7., grad_fn=<AddBackward0>)
print(type(z.grad_fn).__name__)  # AddBackward0 -> the class name, no address
# grad_fn is a Node of the backward graph.
print(isinstance(z.grad_fn, torch.autograd.graph.Node))  # True
print(y.is_leaf, z.is_leaf)  # False False -> made by operations: non-leaf

# Printing a Node itself shows a memory address.
print(y.grad_fn)  # <MulBackward0 object at 0x…>
