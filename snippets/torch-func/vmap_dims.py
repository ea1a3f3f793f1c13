import torch
from torch.func import vmap


def dot(a, b):
    # runs once per vmap call below, not once per sample
    print("inside:", a.shape, b.shape)  # -> each sample's shape, no batch dim
    #> inside: torch.Size([3]) torch.Size([3])
    #> inside: torch.Size([3]) torch.Size([3])
    #> inside: torch.Size([2]) torch.Size([2])
    return (a * b).sum()


A = torch.arange(6.0).reshape(2, 3)  # a batch of 2 rows
B = torch.ones(2, 3)
print(vmap(dot)(A, B))  # tensor([ 3., 12.]) -> in_dims=0: one dot per row

w = torch.tensor([1.0, 0.0, -1.0])  # one vector shared by every row
print(vmap(dot, in_dims=(0, None))(A, w))  # tensor([-2., -2.]) -> w not mapped

print(vmap(dot, in_dims=1)(A, B))  # tensor([3., 5., 7.]) -> one per column

scale = vmap(lambda a: a * 10, out_dims=1)  # put the batch dimension last
print(scale(A))  # -> row i of A becomes column i of the result
#> tensor([[ 0., 30.],
#>         [10., 40.],
#>         [20., 50.]])
