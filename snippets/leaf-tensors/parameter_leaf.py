import torch

# nn.Parameter wraps a tensor as a leaf that requires grad, by default.
p = torch.nn.Parameter(torch.zeros(2))
print(type(p).__name__, p.is_leaf, p.requires_grad)  # Parameter True True

# Modules hold their weights as Parameters.
layer = torch.nn.Linear(2, 1)
weight = layer.weight
print(type(weight).__name__, weight.is_leaf, weight.dtype)
#> Parameter True torch.float32

# Casting the module keeps every parameter a leaf, and the same object.
layer.to(torch.float64)  # layer.double() does the same
print(layer.weight.dtype, layer.weight.is_leaf)  # torch.float64 True
print(layer.weight is weight, type(layer.weight).__name__)  # True Parameter

# Casting a parameter itself is a recorded operation, as for any tensor.
cast = p.double()
print(type(cast).__name__, cast.is_leaf, type(cast.grad_fn).__name__)
#> Tensor False ToCopyBackward0
