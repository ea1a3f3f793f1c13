import torch

base = torch.zeros(4)
view = base[1:3]  # a view: same memory, no copy
print(base._version, view._version)  # 0 0

view.mul_(2)  # change the view in place ...
print(base._version, view._version)  # 1 1 -> ... moves the base's counter

base.fill_(1.0)  # change the base in place ...
print(base._version, view._version)  # 2 2 -> ... moves the view's counter
# The view sees the new values: it is the same memory.
print(view)  # tensor([1., 1.])
