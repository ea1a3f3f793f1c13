# docexec: figure=gradients
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
c = a * b
loss = c + a

loss.backward()
print(a.grad, b.grad)  # tensor(0.) tensor(2.)
