# docexec: figure=gradients
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
scale = torch.tensor(3.0)
h = w * scale
h.retain_grad()
sq = h * h
loss = sq.sum()

loss.backward()
print(w.grad, h.grad, scale.grad)  # tensor([18., 36.]) tensor([ 6., 12.]) None
