import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func

compiles = 0


def counting(graph_module, example_inputs):  # counts forward compilations
    global compiles
    compiles += 1
    return make_boxed_func(graph_module.forward)


backend = aot_autograd(fw_compiler=counting)


@torch.compile(backend=backend)
def f(x, w):
    return (x * w).sum()


x = torch.tensor([1.0, 2.0])
w = torch.tensor([3.0, 4.0], requires_grad=True)

f(x, w)
print(compiles)  # 1
f(x.clone(), w)
print(compiles)  # 1
f(x.requires_grad_(), w)
print(compiles)  # 2
with torch.no_grad():
    out = f(x, w)
print(compiles, out.requires_grad)  # 3 False
f(x.detach(), w)
print(compiles)  # 3
