import torch
from torch.autograd.function import once_differentiable


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        print("incoming gradient requires grad:", grad_output.requires_grad)
        #> incoming gradient requires grad: False
        #> incoming gradient requires grad: False
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


x = torch.tensor(2.0, requires_grad=True)
z = Cube.apply(x) + x**2  # x**3 enters the sum linearly: its gradient is 1
(dz_dx,) = torch.autograd.grad(z, x, create_graph=True)
# right, 3 x**2 + 2 x, but Cube's part of it, 12, is a plain constant
print(dz_dx)  # tensor(16., grad_fn=<AddBackward0>)

# the second derivative should be 6 x + 2 = 14: Cube's 6 x is dropped
print(torch.autograd.grad(dz_dx, x, retain_graph=True))  # (tensor(2.),)
dz_dx.backward()  # backward() does not notice either
print(x.grad)  # tensor(2.)

# scaled by a constant, with no other path to x: nothing left to differentiate
(dy_dx,) = torch.autograd.grad(Cube.apply(x) * 3, x, create_graph=True)
print(dy_dx)  # tensor(36.) -> 3 * 3 x**2, a constant: no grad_fn
try:
    torch.autograd.grad(dy_dx, x)
except RuntimeError as error:
    print("RuntimeError:", error)
    #> RuntimeError: element 0 of tensors does not require grad and does not...
