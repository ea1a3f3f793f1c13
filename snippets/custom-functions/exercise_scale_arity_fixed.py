# docexec: figure=none
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor, None  # one entry per input


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Scale.apply(x, 3.0)
y.sum().backward()
print(x.grad)  # tensor([3., 3.])
