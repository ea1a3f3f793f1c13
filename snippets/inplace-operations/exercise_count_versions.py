# docexec: figure=none
import torch

t = torch.ones(4)
v = t[1:3]  # a view of the middle two elements
t.mul_(2)
v += 1
u = t * 2
u.add_(1)
print(t)  # tensor([2., 3., 3., 2.])
print(t._version, v._version, u._version)  # 2 2 1

t[0] += 1
t.requires_grad_()
print(t._version, v._version)  # 4 4
