import torch

x = torch.tensor(3.0, requires_grad=True)
z = x * 2 + 1
print(x.grad)  # None -> building the graph computes no gradient

z.backward()  # walks the graph from z back to the leaves
print(x.grad)  # tensor(2.) -> dz/dx = 2, stored on the leaf
