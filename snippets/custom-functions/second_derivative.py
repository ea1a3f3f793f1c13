# docexec: figure=gradients
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x**3

# record the backward pass too
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
# 3x**2 at x=2, and it has a grad_fn
print(dy_dx)  # tensor(12., grad_fn=<MulBackward0>)
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)  # differentiate the first derivative
print(d2y_dx2)  # tensor(12.) -> 6x at x=2
