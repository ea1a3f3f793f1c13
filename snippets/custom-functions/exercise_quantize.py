# docexec: figure=gradients
import torch


class Quantize(torch.autograd.Function):
    """Round to the nearest quarter; let the gradient through unchanged."""

    @staticmethod
    def forward(ctx, x):
        return (x * 4).round() / 4  # three operations

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


x = torch.tensor([0.1, 0.4, 0.8], requires_grad=True)

_x = x.detach().requires_grad_()  # first, the same three operations, recorded
((_x * 4).round() / 4).sum().backward()
print(_x.grad)  # tensor([0., 0., 0.])

y = Quantize.apply(x)
print(y)  # tensor([0.0000, 0.5000, 0.7500], grad_fn=<QuantizeBackward>)
print(len(y.grad_fn.next_functions))  # 1
y.sum().backward()
print(x.grad)  # tensor([1., 1., 1.])
