import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)

(w * 3).sum().backward()
print(w.grad)  # tensor([3., 3.]) -> d/dw of the first loss: 3
(w**2).sum().backward()
# 3 + 2w: the second gradient was added to the first
print(w.grad)  # tensor([5., 7.])

w.grad.zero_()  # reset 1: same tensor, filled with zeros
print(w.grad)  # tensor([0., 0.])
# reset 2: no tensor at all; the next backward() writes a fresh one
w.grad = None
print(w.grad)  # None

(w * 3).sum().backward()
optimizer = torch.optim.SGD([w], lr=0.1)
optimizer.zero_grad()  # reset 3: every parameter the optimizer holds
print(w.grad)  # None -> set to None, not zeros, by default
