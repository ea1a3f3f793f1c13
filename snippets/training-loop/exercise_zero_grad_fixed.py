# docexec: figure=none
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
loss_fn = nn.MSELoss()
full = torch.autograd.grad(loss_fn(model(inputs), targets), model.weight)[0]

steps = 4
optimizer.zero_grad()  # once per optimizer step, before its micro-batches
for chunk, target in zip(inputs.chunk(steps), targets.chunk(steps)):
    loss = loss_fn(model(chunk), target) / steps
    loss.backward()
print(torch.allclose(model.weight.grad, full))  # True
optimizer.step()
