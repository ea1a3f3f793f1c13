import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3

(dy_dx,) = torch.autograd.grad(y, x)  # create_graph defaults to False
print(dy_dx)  # tensor(12.) -> the right value, but a constant
# the backward pass left no record
print(dy_dx.grad_fn, dy_dx.requires_grad)  # None False
try:
    torch.autograd.grad(dy_dx, x)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: element 0 of tensors does not require grad and does not ...
