# docexec: figure=none
import torch
from torch.autograd.function import once_differentiable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable  # backward runs in no-grad mode: nothing recorded
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = torch.tensor(2.0, requires_grad=True)
y = Cube.apply(x) ** 2  # x ** 6
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)  # tensor(192., grad_fn=<Error>) -> 6 x ** 5, on a Node that fails
try:
    dy_dx.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: trying to differentiate twice a function that was marked...

# autograd.grad(..., x) skips that Node when it is not on a path to x
z = Cube.apply(x) * x  # x ** 4
(dz_dx,) = torch.autograd.grad(z, x, create_graph=True)
print(dz_dx)  # tensor(32., grad_fn=<AddBackward0>) -> 4 x ** 3: right
# the second derivative should be 12 x ** 2 = 48: a wrong value, no error
print(torch.autograd.grad(dz_dx, x))  # (tensor(12.),)

# w is not an input of Cube, but the gradient Cube receives, w, requires grad
w = torch.tensor(5.0, requires_grad=True)
(du_dx,) = torch.autograd.grad(Cube.apply(x) * w, x, create_graph=True)
print(du_dx)  # tensor(60., grad_fn=<Error>) -> 3 x ** 2 * w: marked

xd = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(Cube.apply, (xd,)))  # True -> first order: fine
ok = torch.autograd.gradgradcheck(Cube.apply, (xd,), raise_exception=False)
print(ok)  # False -> the second order is not
