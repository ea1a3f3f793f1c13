import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x + 1  # the backward of an addition needs no saved tensors
y.mul_(2)  # so changing y in place invalidates nothing
# The in-place operation was recorded as y's new grad_fn.
print(y._version, type(y.grad_fn).__name__)  # 1 MulBackward0

y.sum().backward()
# d(sum(2 * (x + 1)))/dx = 2, computed correctly:
print(x.grad)  # tensor([2., 2., 2.])
