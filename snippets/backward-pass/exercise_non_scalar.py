# docexec: figure=gradients
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x**2

try:
    y.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")  # RuntimeError: grad can be ...

y.backward(gradient=torch.tensor([1.0, 0.0, -1.0]))
print(x.grad)  # tensor([ 2.,  0., -6.])
