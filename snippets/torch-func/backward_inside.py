import torch
from torch.func import grad, vmap

w = torch.tensor([1.0, 2.0], requires_grad=True)
X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # 3 samples


def sample_grad(x):  # the old habit: backward(), then read .grad
    loss = (w * x).sum() ** 2
    loss.backward()
    return w.grad


try:
    vmap(sample_grad)(X)
except RuntimeError as e:
    print(f"{type(e).__name__}: {e}")
    #> RuntimeError: backward() called inside a functorch...functorch.grad...
print(w.grad)  # None -> nothing was accumulated either


def loss(w, x):  # the torch.func way: w is an argument, grad returns
    return (w * x).sum() ** 2


print(vmap(grad(loss), in_dims=(None, 0))(w.detach(), X))  # -> 2 (w.x) x
#> tensor([[2., 0.],
#>         [0., 4.],
#>         [6., 6.]])
