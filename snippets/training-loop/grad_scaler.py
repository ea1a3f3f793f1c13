# docexec: figure=none
import torch
from torch import nn

small = torch.tensor(1e-8)  # a gradient this small is not unusual
print(small.half())  # tensor(0., dtype=torch.float16) -> lost
print((small * 1024).half())  # tensor(1.0252e-05, dtype=torch.float16)
print(small.bfloat16())  # tensor(1.0012e-08, dtype=torch.bfloat16)

w = nn.Parameter(torch.tensor([1.0, 1.0]))
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0)

loss = (w * torch.tensor([3.0, 4.0])).sum()  # its gradient is [3, 4]
scaler.scale(loss).backward()  # backward from loss * 1024
print(w.grad)  # tensor([3072., 4096.])
scaler.unscale_(optimizer)  # divides the grads by the scale, in place
print(w.grad)  # tensor([3., 4.])
norm = nn.utils.clip_grad_norm_([w], max_norm=1.0)  # on the true grads
print(norm, w.grad)  # tensor(5.) tensor([0.6000, 0.8000])
scaler.step(optimizer)  # no inf or NaN found: optimizer.step() runs
scaler.update()
print(w.data, scaler.get_scale())  # tensor([0.9400, 0.9200]) 1024.0
