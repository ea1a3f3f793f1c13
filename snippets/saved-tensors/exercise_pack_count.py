# docexec: figure=none
import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint

calls = {"pack": 0, "unpack": 0}


def pack(tensor):
    calls["pack"] += 1
    return tensor.detach()


def unpack(packed):
    calls["unpack"] += 1
    return packed


def block(t):
    return (t.sin() * t.cos()).sum()


x = torch.tensor([0.5, 1.0], requires_grad=True)
with saved_tensors_hooks(pack, unpack):
    loss = block(x)
print(calls)  # {'pack': 4, 'unpack': 0}
loss.backward()
print(calls)  # {'pack': 4, 'unpack': 4}

calls.update(pack=0, unpack=0)
with saved_tensors_hooks(pack, unpack):
    loss = checkpoint(block, x, use_reentrant=False)
print(calls)  # {'pack': 1, 'unpack': 0}
