# docexec: figure=versions
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * 2 * t


w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 2
y = Square.apply(h)
h.add_(1)  # shift h in place, for some later use
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: one of the variables ...modified by an inplace operation...
print(w.grad)  # None
