import torch

x = torch.tensor([1.5, -0.5], requires_grad=True)
data = torch.tensor([2.0, 4.0])

scaled = data * 10
mixed = x * data
total = scaled.sum() + mixed.sum()
best = mixed.argmax()

print(scaled.requires_grad, scaled.grad_fn)  # False None
print(mixed.requires_grad, type(mixed.grad_fn).__name__)  # True MulBackward0
print(total.requires_grad, type(total.grad_fn).__name__)  # True AddBackward0
print(best.requires_grad, best.grad_fn)  # False None
print(scaled.is_leaf, mixed.is_leaf, best.is_leaf)  # True False True
