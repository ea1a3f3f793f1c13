# docexec: figure=none
import torch

w = torch.randn(3, 3, requires_grad=True)
x = torch.randn(2, 3)

with torch.autocast("cpu", dtype=torch.bfloat16):
    h = x @ w
    e = h.exp()
    s = torch.softmax(h, dim=1)
    total = h + w[:2]
print(h.dtype, e.dtype)  # torch.bfloat16 torch.bfloat16
print(s.dtype, total.dtype)  # torch.bfloat16 torch.float32
total.sum().backward()
print(w.grad.dtype)  # torch.float32
