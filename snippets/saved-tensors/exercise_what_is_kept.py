# docexec: figure=saved
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
scale = torch.tensor([3.0, 4.0])  # data: requires no grad

y = scale * x  # for this multiplication, self is scale and other is x
print(y.grad_fn._saved_self)  # tensor([3., 4.])
print(y.grad_fn._saved_other)  # None

z = y.exp()
print(z.grad_fn._saved_result is z)  # False

total = z + y
print([name for name in dir(total.grad_fn) if name.startswith("_saved")])
#> ['_saved_alpha']
