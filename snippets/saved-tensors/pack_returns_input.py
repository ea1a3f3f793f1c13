import gc
import weakref

import torch
from torch.autograd.graph import saved_tensors_hooks


def saved_alive_after_del(pack, run_backward=False):
    """Build a graph under pack, drop it, count the saved tensors alive."""
    refs = []

    def tracking_pack(tensor):
        packed = pack(tensor)
        refs.append(weakref.ref(packed))
        return packed

    x = torch.tensor([0.5, 1.0], requires_grad=True)
    with saved_tensors_hooks(tracking_pack, lambda packed: packed):
        # exp saves its output; sin saves that same tensor
        loss = x.exp().sin().sum()
    if run_backward:
        loss.backward()
    del loss, x  # nothing of ours refers to the graph any more
    gc.collect()  # and even the cycle collector gets a chance
    return f"{sum(ref() is not None for ref in refs)} of {len(refs)} alive"


# the graph and its saved tensors leaked
print(saved_alive_after_del(lambda tensor: tensor))  # 2 of 2 alive
# freed as soon as the graph was dropped
print(saved_alive_after_del(lambda tensor: tensor.detach()))  # 0 of 2 alive
# backward freed them: no leak
print(saved_alive_after_del(lambda t: t, run_backward=True))  # 0 of 2 alive
