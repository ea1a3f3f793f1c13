import warnings

import torch

lr = 0.1
p = torch.tensor([1.0, 2.0], requires_grad=True)
(p ** 2).sum().backward()
print(p.grad)  # tensor([2., 4.]) -> the first gradient arrives as expected

p = p - lr * p.grad  # no error: this builds a new tensor and rebinds p
# p is now the output of a subtraction:
print(p.is_leaf, type(p.grad_fn).__name__)  # False SubBackward0

(p ** 2).sum().backward()
# The gradient went to the old leaf, which no name refers to any more.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(p.grad)  # None -> reading it raised nothing
# but it emitted a warning, which the block above recorded
print([warning.category.__name__ for warning in caught])  # ['UserWarning']

try:
    p = p - lr * p.grad  # the second step
except TypeError as error:
    print(f"TypeError: {error}")
    #> TypeError: unsupported operand type(s) for *: 'float' and 'NoneType'
