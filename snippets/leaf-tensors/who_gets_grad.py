import torch

data = torch.tensor([1.0, 2.0])  # a leaf that does not require grad
w = torch.tensor([0.5, -1.0], requires_grad=True)  # a leaf that requires grad
hidden = w * data  # a non-leaf
loss = (hidden ** 2).sum()
loss.backward()

print(w.grad)  # tensor([ 1., -8.]) -> filled in: a leaf that requires grad
print(data.grad)  # None -> a leaf, but nothing asked for its gradient
# The gradient flowed through hidden but was not kept (see the warning below).
print(hidden.grad)  # None
