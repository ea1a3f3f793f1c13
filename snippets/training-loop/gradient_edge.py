# docexec: figure=gradients draw=x+loss
import weakref

import torch
from torch.autograd.graph import get_gradient_edge

x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
loss = h.exp().sum()  # ExpBackward0 saves its result, not h
edge = get_gradient_edge(h)  # where h's gradient enters the graph
print(edge.node.name(), edge.output_nr)  # MulBackward0 0
(dloss_dh,) = torch.autograd.grad(loss, edge, retain_graph=True)
print(dloss_dh)  # tensor([ 20.0855, 403.4288]) -> exp(h), as if h were an input

alive = weakref.ref(h)
del h
print(alive() is None)  # True -> nothing holds h any more
(dloss_dh,) = torch.autograd.grad(loss, edge)  # the edge still works
print(dloss_dh)  # tensor([ 20.0855, 403.4288])
