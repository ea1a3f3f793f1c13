# docexec: figure=none
import torch


class Affine(torch.autograd.Function):
    """a * x + b, for tensors a, x and a Python float b."""

    @staticmethod
    def forward(ctx, a, x, b):
        ctx.save_for_backward(a, x)
        return a * x + b

    @staticmethod
    def backward(ctx, grad_output):
        a, x = ctx.saved_tensors
        print(ctx.needs_input_grad)
        #> (True, False, False)
        #> (True, True, False)
        grad_a = grad_output * x if ctx.needs_input_grad[0] else None
        grad_x = grad_output * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_x, None


a = torch.tensor([2.0, 3.0], requires_grad=True)
x = torch.tensor([5.0, 7.0])
Affine.apply(a, x, 1.0).sum().backward()
print(a.grad, x.grad)  # tensor([5., 7.]) None

x.requires_grad_()
a.grad = None
(grad_a,) = torch.autograd.grad(Affine.apply(a, x, 1.0).sum(), a)
print(grad_a, x.grad)  # tensor([5., 7.]) None
