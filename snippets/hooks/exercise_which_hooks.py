import torch
from torch import nn


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(2, 2)

    def forward(self, x):
        return self.inner.forward(x)


torch.manual_seed(0)
model = Wrapper()
calls = []
model.register_forward_hook(lambda mod, args, out: calls.append("Wrapper"))
model.inner.register_forward_hook(lambda mod, args, out: calls.append("Linear"))

x = torch.ones(1, 2)
model(x)
print(calls)  # ['Wrapper']
calls.clear()
model.forward(x)
print(calls)  # []
calls.clear()
nn.Sequential(model.inner)(x)
print(calls)  # ['Linear']
