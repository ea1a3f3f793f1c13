import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 3
loss = (h**2).sum()

loss.backward(retain_graph=True)
h.retain_grad()  # asked for only after the first pass
print(h.retains_grad, h.grad)  # True None

loss.backward()
print(h.grad)  # tensor([ 6., 12.])
print(w.grad)  # tensor([36., 72.])
