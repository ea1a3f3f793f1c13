import torch

lr = 0.1
p = torch.tensor([1.0, 2.0], requires_grad=True)
(p ** 2).sum().backward()

try:
    p -= lr * p.grad  # grad mode is on: autograd would have to record this
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: a leaf Variable that requires grad is being used in an ...
print(p._version)  # 0 -> the refused update changed nothing

with torch.no_grad():  # the fix: make the update invisible to autograd
    p -= lr * p.grad
print(p)  # tensor([0.8000, 1.6000], requires_grad=True) -> no grad_fn
# Still the same leaf, one in-place change later:
print(p.is_leaf, p._version)  # True 1
