# docexec: figure=none
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):  # factor is a Python float
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.factor


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Scale.apply(x, 3.0)
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: function ScaleBackward returned an...(expected 2, got 1)
print(x.grad)  # None
