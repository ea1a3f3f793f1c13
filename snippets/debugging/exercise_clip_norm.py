# docexec: figure=none
import torch
from torch.nn.utils import clip_grad_norm_

p = torch.zeros(2, requires_grad=True)
q = torch.zeros(1, requires_grad=True)
p.grad = torch.tensor([6.0, 0.0])
q.grad = torch.tensor([8.0])

print(clip_grad_norm_([p, q], max_norm=5.0))  # tensor(10.)
print(p.grad, q.grad)  # tensor([3.0000, 0.0000]) tensor([4.0000])
print(clip_grad_norm_([p, q], max_norm=20.0))  # tensor(5.)
print(p.grad, q.grad)  # tensor([3.0000, 0.0000]) tensor([4.0000])
