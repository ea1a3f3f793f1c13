import gc
import warnings
import weakref

import torch

# the previous example showed the warning; keep it out of this output
warnings.filterwarnings("ignore", message=r"Using backward\(\) with create")


def survives(step):
    """Run one training step on a fresh parameter, drop every name for it,
    collect garbage, and tell whether the parameter is still in memory."""
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    alive = weakref.ref(w)
    step(w)
    del w
    gc.collect()
    return alive() is not None


def with_grad(w):
    (g,) = torch.autograd.grad((w**3).sum(), w, create_graph=True)
    g.sum().backward()  # use the differentiable gradient, then drop it


def with_backward(w):
    (w**3).sum().backward(create_graph=True)  # w.grad now has a grad_fn


def with_backward_then_reset(w):
    (w**3).sum().backward(create_graph=True)
    w.grad = None  # break the cycle


print(survives(with_grad))  # False -> freed
print(survives(with_backward))  # True -> leaked: w -> w.grad -> graph -> w
print(survives(with_backward_then_reset))  # False -> freed
