# docexec: draw=weight+bias+x+y+loss
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)
weight, bias = layer.weight, layer.bias  # the parameters, by name
x = torch.ones(4, 3)

with torch.autocast("cpu", dtype=torch.bfloat16):
    y = layer(x)  # a matrix multiply: autocast runs it in bfloat16
    loss = y.float().pow(2).mean()  # back to float32 for the loss

print(weight.dtype, y.dtype)  # torch.float32 torch.bfloat16
print(y.grad_fn.name())  # AddmmBackward0
print([n.name() for n, _ in y.grad_fn.next_functions if n is not None])
#> ['ToCopyBackward0', 'TBackward0']
loss.backward()
print(weight.grad.dtype, bias.grad.dtype)  # torch.float32 torch.float32
