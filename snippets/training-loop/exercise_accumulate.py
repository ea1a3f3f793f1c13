# docexec: figure=none
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
loss_fn = nn.MSELoss()

loss_fn(model(inputs), targets).backward()
full = model.weight.grad.clone()

model.zero_grad()
for chunk, target in zip(inputs.chunk(4), targets.chunk(4)):
    loss_fn(model(chunk), target).backward()
print(model.weight.grad / full)  # tensor([[4., 4., 4.]])
