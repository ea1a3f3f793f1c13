# docexec: figure=gradients draw=x+loss
import torch
from torch.autograd.graph import get_gradient_edge

x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
loss = (h**2).sum()
edge = get_gradient_edge(h)  # where h's gradient enters the graph
print(edge.node.name(), edge.output_nr)  # MulBackward0 0
(dloss_dh,) = torch.autograd.grad(loss, edge, retain_graph=True)
print(dloss_dh)  # tensor([ 6., 12.]) -> 2h, as if h were an input

del h  # the tensor is gone, the edge still points into the graph
(dloss_dh,) = torch.autograd.grad(loss, edge)
print(dloss_dh)  # tensor([ 6., 12.])
