# docexec: figure=none
import torch
from torch import nn

w = nn.Parameter(torch.tensor([1.0, 1.0]))
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)

scaler.scale((w * torch.tensor([3.0, 4.0])).sum()).backward()
norm = nn.utils.clip_grad_norm_([w], max_norm=1.0)  # grads 1024 times too big
print(norm)  # tensor(5120.)
scaler.step(optimizer)  # unscales (divides by 1024), then steps
scaler.update()
print(w.grad)  # tensor([0.0006, 0.0008]) -> the clipped grads, / 1024
print(w.data)  # tensor([0.9999, 0.9999]) -> a step 1024 times too small
