import torch

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.5, -1.0], requires_grad=True)  # the weights
b = torch.tensor(0.0)  # the bias, to be trained too

loss = ((x * w).sum() + b - 1) ** 2
loss.backward()
print(w.grad)  # tensor([ -5., -10.])
print(b.grad)  # None
