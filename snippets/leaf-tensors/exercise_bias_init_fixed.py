import torch

x = torch.tensor([[1.0, 2.0]])
w = torch.zeros(2, 1, requires_grad=True)
b = torch.tensor([0.1], requires_grad=True)  # the values first, then tracked

loss = (x @ w + b).pow(2).sum()
loss.backward()
print(w.grad.flatten())  # tensor([0.2000, 0.4000])
print(b.is_leaf, b.grad)  # True tensor([0.2000])

optimizer = torch.optim.SGD([w, b], lr=0.1)  # accepted
print(len(optimizer.param_groups[0]["params"]))  # 2
