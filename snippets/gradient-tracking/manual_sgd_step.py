import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (w**2).sum()
loss.backward()
print(w.grad)  # tensor([2., 4.]) -> d loss / dw = 2w

try:
    w -= 0.1 * w.grad  # an update autograd would have to record
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: a leaf Variable that requires grad is being used in an ...

with torch.no_grad():
    w -= 0.1 * w.grad  # not recorded: the optimizer's way
print(w)  # tensor([0.8000, 1.6000], requires_grad=True) -> updated in place
# Still a leaf, ready for the next forward pass:
print(w.is_leaf, w.grad_fn)  # True None
