import torch
from torch.func import grad, vmap


def loss(w, x):
    return (w * x).sum() ** 2


w = torch.tensor([1.0, 2.0])  # one weight vector for every sample
X = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])  # 3 samples

try:
    vmap(grad(loss))(w, X)  # in_dims=0 for w too: 2 "samples" of w
except ValueError as e:
    print(f"{type(e).__name__}: {e}")
    #> ValueError: vmap: Expected all tensors to have the same size...[2, 3]...

print(vmap(grad(loss), in_dims=(None, 0))(w, X).shape)  # torch.Size([3, 2])

# with 2 samples the sizes agree, and the same mistake raises nothing:
# sample i is paired with the single number w[i]
print(vmap(grad(loss))(w, X[:2]).shape)  # torch.Size([2]) -> not (2, 2)
