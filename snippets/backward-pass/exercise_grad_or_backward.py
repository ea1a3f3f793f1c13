# docexec: figure=gradients
import torch

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(5.0, requires_grad=True)

z = x * y
(dz_dx,) = torch.autograd.grad(z, x)
print(dz_dx, x.grad, y.grad)  # tensor(5.) None None

z = x * y  # a new forward pass
z.backward(inputs=[y])
print(x.grad, y.grad)  # None tensor(2.)
