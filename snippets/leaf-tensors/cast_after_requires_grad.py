import torch

w = torch.zeros(3, requires_grad=True).to(torch.float64)  # the cast is a recorded operation
print(w.dtype, w.is_leaf, type(w.grad_fn).__name__)  # torch.float64 False ToCopyBackward0 -> a float64 non-leaf
print(torch.zeros(3, requires_grad=True).double().is_leaf)  # False -> .double() is the same cast
loss = (w + 1).pow(2).sum()
loss.backward()
print(w.grad)  # None -> w is not where the gradient is stored
_original = w.grad_fn.next_functions[0][0].variable  # the float32 leaf behind the cast
print(_original.dtype, _original.grad)  # torch.float32 tensor([2., 2., 2.]) -> the gradient went to a tensor your code has no name for

v = torch.zeros(3).double().requires_grad_()  # cast first, then track (or pass dtype= when creating)
print(v.dtype, v.is_leaf)  # torch.float64 True -> a float64 leaf
loss = (v + 1).pow(2).sum()
loss.backward()
print(v.grad)  # tensor([2., 2., 2.], dtype=torch.float64) -> filled in
print(v.to(torch.float64) is v)  # True -> a "cast" to the dtype it already has returns the tensor itself
