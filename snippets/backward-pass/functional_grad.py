import torch

x = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
y = x**3 + b

(dy_dx,) = torch.autograd.grad(y, x)  # a tuple: one gradient per input
print(dy_dx)  # tensor(27.) -> 3 * x ** 2
# returned, not accumulated; b was not asked for at all
print(x.grad, b.grad)  # None None

y = x**3 + b
# record the backward pass as a graph too
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)  # tensor(27., grad_fn=<MulBackward0>) -> a non-leaf now
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)  # so it can be differentiated again
print(d2y_dx2)  # tensor(18.) -> 6 * x
