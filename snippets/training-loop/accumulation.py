# docexec: figure=none
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
inputs, targets = torch.randn(8, 3), torch.randn(8, 1)
loss_fn = nn.MSELoss()  # a mean over the batch

loss_fn(model(inputs), targets).backward()  # one batch of 8
full = model.weight.grad.clone()

model.zero_grad()  # set_to_none=True is the default: .grad is None again
print(model.weight.grad)  # None
steps = 4
for chunk, target in zip(inputs.chunk(steps), targets.chunk(steps)):
    loss = loss_fn(model(chunk), target) / steps  # each mean counts 1/4
    loss.backward()  # adds into .grad
print(torch.allclose(model.weight.grad, full))  # True
