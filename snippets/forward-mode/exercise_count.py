import torch
from torch.autograd import functional as AF
from torch.func import jvp

passes = 0


def count(grad):  # a tensor hook runs once per backward pass through h
    global passes
    passes += 1


def f(x):  # R^2 -> R^3
    h = x.exp()
    if h.requires_grad:
        h.register_hook(count)
    return torch.stack([h[0], h[1], h[0] * h[1]])


x = torch.tensor([0.0, 1.0])
calls = {
    "functional.jacobian": lambda: AF.jacobian(f, x),
    "functional.vjp": lambda: AF.vjp(f, x, torch.ones(3)),
    "functional.jvp": lambda: AF.jvp(f, x, torch.ones(2)),
    "torch.func.jvp": lambda: jvp(f, (x,), (torch.ones(2),)),
}
for name, call in calls.items():
    passes = 0
    call()
    print(f"{name}: {passes}")
    #> functional.jacobian: 3
    #> functional.vjp: 1
    #> functional.jvp: 1
    #> torch.func.jvp: 0
