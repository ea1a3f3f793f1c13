import torch
from torch.autograd.graph import saved_tensors_hooks
from torch.utils.checkpoint import checkpoint


def block(t):
    """Four elementwise steps: each one saves a tensor for backward."""
    return t.sin().exp().cos().tanh()


def run(fn):
    """Forward and backward through fn.

    Returns (number of tensors the graph saved, gradient).
    """
    x = torch.linspace(-1.0, 1.0, 5, requires_grad=True)
    count = 0

    def pack(tensor):
        nonlocal count
        count += 1
        return tensor.detach()

    with saved_tensors_hooks(pack, lambda packed: packed):
        loss = fn(x).sum()
    loss.backward()
    return count, x.grad


saved_plain, grad_plain = run(block)
saved_ckpt, grad_ckpt = run(lambda t: checkpoint(block, t, use_reentrant=False))

print(saved_plain)  # 4 -> one saved tensor per step of block
# only block's input: the rest is recomputed during backward
print(saved_ckpt)  # 1
print(torch.allclose(grad_plain, grad_ckpt))  # True -> the same gradient
