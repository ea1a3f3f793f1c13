import torch
from torch.func import grad, vmap


def f(x):  # one sample (a vector) -> a scalar
    return (x.sin() * x).sum()


X = torch.tensor([[0.0, 1.0], [2.0, 3.0], [-1.0, 0.5]])  # 3 samples
per_sample = vmap(grad(f))(X)  # grad of f for each row, in one call
print(per_sample.shape)  # torch.Size([3, 2]) -> one gradient per sample

by_hand = torch.stack([grad(f)(x) for x in X])  # the loop it replaces
print(torch.allclose(per_sample, by_hand))  # True
print(torch.allclose(per_sample, X.sin() + X * X.cos()))  # True -> f'(x)
