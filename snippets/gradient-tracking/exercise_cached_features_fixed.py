import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 3)
head = torch.nn.Linear(3, 1)
data = torch.ones(2, 3)

with torch.no_grad():  # the fix: untracked, but ordinary tensors
    features = encoder(data)

loss = head(features).sum()
loss.backward()
print(features.is_inference(), features.requires_grad)  # False False
print(head.weight.grad is not None, head.bias.grad)  # True tensor([2.])
