# docexec: figure=none
import torch


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)  # save the input, not only the output
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        # ordinary differentiable operations on a saved input: under
        # create_graph=True they are recorded like any forward pass
        return grad_output * 3 * x**2


x = torch.tensor(3.0, requires_grad=True)
y = Cube.apply(x)
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print(dy_dx)  # tensor(27., grad_fn=<MulBackward0>) -> 3 x ** 2, recorded
(d2y_dx2,) = torch.autograd.grad(dy_dx, x)
print(d2y_dx2)  # tensor(18.) -> 6 x, through the recorded backward

xd = torch.tensor([0.5, 2.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradgradcheck(Cube.apply, (xd,)))  # True
