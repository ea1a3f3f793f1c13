import weakref

import torch
from torch.autograd.graph import saved_tensors_hooks

w = torch.tensor([0.5, -1.0], requires_grad=True)
# weak references to everything the graphs save: they keep nothing alive
saved = []


def pack(tensor):
    packed = tensor.detach()
    saved.append(weakref.ref(packed))
    return packed


def evaluate(keep_graph):
    """Sum the loss over three batches, as a validation loop might."""
    total = 0.0
    for step in range(3):
        batch = torch.full((2,), float(step))
        # saves batch (for the multiplication) and the exp result
        loss = (w * batch).exp().sum()
        total = total + (loss if keep_graph else loss.item())
    return total


for keep_graph in (True, False):
    saved.clear()
    with saved_tensors_hooks(pack, lambda packed: packed):
        total = evaluate(keep_graph)
    alive = sum(ref() is not None for ref in saved)
    added = "loss" if keep_graph else "loss.item()"
    print(f"total + {added}: {alive} of {len(saved)} saved tensors alive")
    #> total + loss: 6 of 6 saved tensors alive
    #> total + loss.item(): 0 of 6 saved tensors alive
