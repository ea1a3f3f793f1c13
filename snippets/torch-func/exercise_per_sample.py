import torch
from torch.func import grad, vmap


def loss(w, x):  # the loss of one sample
    return ((w * x).sum() - 1) ** 2


w = torch.tensor([0.5, -1.0, 2.0])  # one weight vector for every sample
X = torch.arange(9.0).reshape(3, 3)  # 3 samples of 3 features

per_sample = vmap(grad(loss))(w, X)  # meant: one gradient per sample
print(per_sample.shape)  # torch.Size([3])
