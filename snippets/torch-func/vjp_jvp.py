import torch
from torch.func import jvp, vjp


def f(x):  # two inputs, three outputs
    return torch.stack([x[0] * x[1], x[0] ** 2, x[1].sin()])


x = torch.tensor([2.0, 0.0])

# vjp runs f once and hands back its output and a function of a cotangent v
out, vjp_fn = vjp(f, x)
print(out)  # tensor([0., 4., 0.])
v = torch.tensor([1.0, 10.0, 100.0])  # one entry per output
print(vjp_fn(v))  # (tensor([ 40., 102.]),) -> v @ J, the shape of x, in a tuple

# jvp takes a tangent t (one entry per input) and pushes it forward
t = torch.tensor([0.0, 1.0])  # "move x[1] only"
out, jvp_out = jvp(f, (x,), (t,))
print(jvp_out)  # tensor([2., 0., 1.]) -> J @ t, the shape of the output
