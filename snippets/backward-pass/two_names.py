# docexec: figure=gradients
import torch

a = torch.tensor(3.0, requires_grad=True)
b = a  # a second name for the same tensor, not a copy
print(b is a)  # True

y = a * b  # so this is a * a
print(y)  # tensor(9., grad_fn=<MulBackward0>)
y.backward()
print(a.grad)  # tensor(6.) -> 2a: the factor a, twice
print(b.grad is a.grad)  # True -> one tensor, so one .grad
