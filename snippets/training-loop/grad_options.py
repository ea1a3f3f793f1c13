# docexec: figure=none
import torch
from torch.autograd import grad

x = torch.tensor(1.0, requires_grad=True)
unused = torch.tensor(5.0, requires_grad=True)
try:
    grad(2 * x, (x, unused))
except RuntimeError as error:
    print(error)
    #> The differentiated Tensor at index 1 appears to not have been used in ...
print(grad(2 * x, (x, unused), allow_unused=True))  # (tensor(2.), None)
print(grad(2 * x, (x, unused), materialize_grads=True))
#> (tensor(2.), tensor(0.))

# is_grads_batched: one backward pass per row of grad_outputs, vectorised;
# with the rows of the identity, the rows of the Jacobian
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(jacobian,) = grad(x**2, x, torch.eye(3), is_grads_batched=True)
print(jacobian)
#> tensor([[2., 0., 0.],
#>         [0., 4., 0.],
#>         [0., 0., 6.]])
