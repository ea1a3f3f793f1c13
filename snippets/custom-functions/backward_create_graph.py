import warnings

import torch

x = torch.tensor(2.0, requires_grad=True)

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    (x**3).backward(create_graph=True)  # works, but warns
print(x.grad)  # tensor(12., grad_fn=<CopyBackwards>) -> .grad now has a graph
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
    #> UserWarning: ...a reference cycle...We recommend using autograd.grad...
x.grad = None  # what the warning asks for: it breaks the cycle

# The same first derivative as a return value, with no cycle and no warning
(dy_dx,) = torch.autograd.grad(x**3, x, create_graph=True)
print(dy_dx)  # tensor(12., grad_fn=<MulBackward0>)
del dy_dx  # no figure for this example
