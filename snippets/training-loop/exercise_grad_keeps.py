# docexec: figure=none
import torch

x = torch.tensor(3.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
y = x**2

(dx, db) = torch.autograd.grad(y, (x, b), materialize_grads=True)
print(dx, db)  # tensor(6.) tensor(0.)
print(x.grad, b.grad)  # None None
