# docexec: figure=none
import torch
from torch.func import grad


class Cube(torch.autograd.Function):
    """x ** 3, written in the split style: forward takes no ctx."""

    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs  # the arguments forward got, as a tuple
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


class OldCube(torch.autograd.Function):
    """The same Function, with ctx as forward's first argument."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = torch.tensor(2.0, requires_grad=True)
y = Cube.apply(x)  # .apply works the same for both styles
y.backward()
print(y, x.grad)  # tensor(8., grad_fn=<CubeBackward>) tensor(12.)

# torch.func.grad turns a function into its gradient function
print(grad(Cube.apply)(torch.tensor(2.0)))  # tensor(12.) -> 3 * x ** 2
try:
    grad(OldCube.apply)(torch.tensor(2.0))
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ...functorch transforms...override the setup_context...
