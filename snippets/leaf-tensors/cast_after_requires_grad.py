import torch

# The cast is a recorded operation: w is a float64 non-leaf.
w = torch.zeros(3, requires_grad=True).to(torch.float64)
print(w.dtype, w.is_leaf, type(w.grad_fn).__name__)
#> torch.float64 False ToCopyBackward0
# .double() is the same cast:
print(torch.zeros(3, requires_grad=True).double().is_leaf)  # False
loss = (w + 1).pow(2).sum()
loss.backward()
print(w.grad)  # None -> w is not where the gradient is stored
_original = w.grad_fn.next_functions[0][0].variable  # the leaf behind the cast
# The gradient went to a tensor your code has no name for:
print(_original.dtype, _original.grad)  # torch.float32 tensor([2., 2., 2.])

# Cast first, then track (or pass dtype= when creating the tensor).
v = torch.zeros(3).double().requires_grad_()
print(v.dtype, v.is_leaf)  # torch.float64 True -> a float64 leaf
loss = (v + 1).pow(2).sum()
loss.backward()
print(v.grad)  # tensor([2., 2., 2.], dtype=torch.float64) -> filled in
# A "cast" to the dtype it already has returns the tensor itself:
print(v.to(torch.float64) is v)  # True

# An in-place change cannot do the cast instead: it keeps the dtype.
with torch.no_grad():
    v.copy_(torch.ones(3, dtype=torch.float32))
print(v.dtype, v.is_leaf)  # torch.float64 True

# A cast to an integer dtype is never recorded (chapter 01): the result is a
# leaf, but one that does not require grad.
n = torch.zeros(3, requires_grad=True).long()
print(n.dtype, n.is_leaf, n.requires_grad)  # torch.int64 True False
