# docexec: figure=gradients
import torch

x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
loss = w * x**2  # a scalar root

# keep the gradient that arrives at loss itself (a non-leaf; chapter 04)
loss.retain_grad()
loss.backward()  # starts the walk at loss with the seed gradient 1
print(loss.grad)  # tensor(1.) -> the seed: d loss / d loss = 1
print(x.grad)  # tensor(12.) -> d loss / dx = 2 * w * x
print(w.grad)  # tensor(4.) -> d loss / dw = x ** 2
