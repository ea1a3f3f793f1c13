# docexec: figure=none
import torch
from torch.autograd.graph import register_multi_grad_hook

a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = torch.tensor(3.0, requires_grad=True)
calls = 0  # how many times all_ready ran


def all_ready(grads):
    """mode="all": one call per backward pass that reaches any of the
    tensors, with every gradient at once."""
    global calls
    calls += 1
    print("all:", grads)  # -> None for c, which this pass did not reach
    #> all: [tensor(2.), tensor(3.), None]


handle = register_multi_grad_hook((a, b, c), all_ready)
(a * 2 + b * 3).backward()
(torch.tensor(4.0, requires_grad=True) * 5).backward()  # reaches none of them
print("calls:", calls)  # calls: 1 -> the second pass did not call the hook
handle.remove()


def first_ready(grad):
    """mode="any": one call per pass, with the first gradient computed."""
    print("any:", grad)
    #> any: tensor(3.)
    #> any: tensor(5.)


register_multi_grad_hook((a, b), first_ready, mode="any")
(a * 2 + b * 3).backward()  # called once, not once per tensor
(b * 5).backward()  # a is not reached: the hook still runs, for b
