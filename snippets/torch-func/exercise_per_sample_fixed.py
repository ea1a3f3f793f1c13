import torch
from torch.func import grad, vmap


def loss(w, x):
    return ((w * x).sum() - 1) ** 2


w = torch.tensor([0.5, -1.0, 2.0])
X = torch.arange(9.0).reshape(3, 3)

per_sample = vmap(grad(loss), in_dims=(None, 0))(w, X)  # w is shared
print(per_sample.shape)  # torch.Size([3, 3])
# row i is the gradient of sample i alone
print(torch.equal(per_sample[2], grad(loss)(w, X[2])))  # True
