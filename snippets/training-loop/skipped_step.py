# docexec: figure=none
import torch
from torch import nn

w = nn.Parameter(torch.tensor([1.0, 1.0]))
optimizer = torch.optim.SGD([w], lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)

for step, factor in enumerate([1.0, float("inf"), 1.0, 1.0]):
    optimizer.zero_grad()
    loss = (w * factor).sum()
    scaler.scale(loss).backward()
    before = w.detach().clone()
    scaler.step(optimizer)  # skipped when a gradient is inf or NaN
    scaler.update()  # a skip halves the scale; 2 good steps double it
    moved = not torch.equal(w, before)
    print(f"step {step}: moved {moved}, scale now {scaler.get_scale()}")
    #> step 0: moved True, scale now 1024.0
    #> step 1: moved False, scale now 512.0
    #> step 2: moved True, scale now 512.0
    #> step 3: moved True, scale now 1024.0
