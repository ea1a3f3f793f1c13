# docexec: figure=cuts
import torch

w = torch.tensor(1.0, requires_grad=True)

with torch.no_grad():
    a = w * 2
    with torch.enable_grad():
        b = w * 2
    c = b * 2
    d = torch.ones(1, requires_grad=True)
with torch.set_grad_enabled(False):
    e = w * 2
f = w * 2

print(a.requires_grad, b.requires_grad, c.requires_grad)  # False True False
print(d.requires_grad, e.requires_grad, f.requires_grad)  # True False True
