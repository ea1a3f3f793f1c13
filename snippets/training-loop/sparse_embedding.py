# docexec: figure=none
import torch
from torch import nn

embedding = nn.Embedding(5, 2, sparse=True)
embedding(torch.tensor([1, 1, 4])).sum().backward()
grad = embedding.weight.grad
print(grad.layout, grad.shape)  # torch.sparse_coo torch.Size([5, 2])
print(grad._indices())  # tensor([[1, 1, 4]]) -> one row per lookup
grad = grad.coalesce()  # rows that repeat are summed
print(grad.indices(), grad.values())
#> tensor([[1, 4]]) tensor([[2., 2.],
#>         [1., 1.]])

torch.optim.SGD(embedding.parameters(), lr=0.1).step()  # accepts it
try:
    torch.optim.Adam(embedding.parameters()).step()
except RuntimeError as error:
    print(error)  # Adam does not support sparse gradients, ... -> SparseAdam:
torch.optim.SparseAdam(embedding.parameters()).step()  # accepts it
