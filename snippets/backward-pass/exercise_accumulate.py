# docexec: figure=none
import torch

w = torch.tensor(2.0, requires_grad=True)

(w * 3).backward()
print(w.grad)  # tensor(3.)
(w * w).backward()
print(w.grad)  # tensor(7.)

w.grad.zero_()
print(w.grad)  # tensor(0.)
w.grad = None
print(w.grad)  # None

(w**3).backward()
print(w.grad)  # tensor(12.)
