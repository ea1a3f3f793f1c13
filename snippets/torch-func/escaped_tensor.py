import torch
from torch.func import vmap

seen = []  # state outside the function


def f(x):
    y = x * 2
    seen.append(y)  # a side effect: keep an intermediate for later
    return y.sum()


X = torch.ones(4, 3)  # 4 samples
print(vmap(f)(X))  # tensor([6., 6., 6., 6.])
print(len(seen))  # 1 -> f ran once, not 4 times
print(seen[0].shape)  # torch.Size([3]) -> one sample's shape, not (4, 3)
try:
    seen[0] + 1
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: Either your tensor may have escaped from inside a...


def f_pure(x):  # return what you need instead
    y = x * 2
    return y.sum(), y


total, ys = vmap(f_pure)(X)
print(ys.shape)  # torch.Size([4, 3]) -> batched like any other output
