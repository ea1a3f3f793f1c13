import torch

x = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
y = x * 2  # differentiable: recorded, as usual
print(y.requires_grad, type(y.grad_fn).__name__)  # True MulBackward0

# Results with integer or boolean values have no gradient to carry:
# x requires grad, yet none of them does, and none has a grad_fn.
as_long = x.long()
as_int64 = x.to(torch.int64)
positive = x > 0
position = x.argmax()
print(as_long.dtype, as_long.requires_grad, as_long.grad_fn)
#> torch.int64 False None
print(as_int64.dtype, as_int64.requires_grad, as_int64.grad_fn)
#> torch.int64 False None
print(positive.dtype, positive.requires_grad, positive.grad_fn)
#> torch.bool False None
print(position.dtype, position.requires_grad, position.grad_fn)
#> torch.int64 False None

# A few operations with floating-point results are not differentiable
# either, such as a histogram.
counts = torch.histc(x, bins=2)
print(counts.dtype, counts.requires_grad, counts.grad_fn)
#> torch.float32 False None

# One operation can give both kinds: max over a dimension returns the
# largest value (differentiable) and its position (an integer).
values, indices = x.max(dim=0)
print(values.requires_grad, type(values.grad_fn).__name__)  # True MaxBackward0
print(indices.requires_grad, indices.grad_fn)  # False None
# Untracked results are leaves (chapter 04): no recorded operation made them.
print(indices.is_leaf, positive.is_leaf)  # True True
