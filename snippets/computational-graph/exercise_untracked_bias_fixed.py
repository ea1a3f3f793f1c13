import torch

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)  # the fix: ask for tracking

loss = ((x * w).sum() + b - 1) ** 2
loss.backward()
print(w.grad)  # tensor([ -5., -10.])
print(b.grad)  # tensor(-5.) -> the bias gets its gradient now
