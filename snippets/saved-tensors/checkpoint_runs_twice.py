import torch
from torch.utils.checkpoint import checkpoint

calls = 0


def block(t):
    global calls
    calls += 1  # a side effect: anything here happens on every run of block
    return t.sin().exp()


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = checkpoint(block, x, use_reentrant=False)
print(calls)  # 1 -> the forward pass ran block once

y.sum().backward()
print(calls)  # 2 -> backward ran it again, to recompute what was not saved
