# docexec: figure=none
import torch


class TwoOutputs(torch.autograd.Function):
    """Returns 2x and 3x; backward reports what it receives."""

    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, grad_a, grad_b):
        # by default, zeros for the unused output b; without materializing, None
        print("backward got:", grad_a, grad_b)
        #> backward got: tensor([1., 1.]) tensor([0., 0.])
        #> backward got: tensor([1., 1.]) None
        grad_x = 0
        if grad_a is not None:  # with materialize=False, check for None
            grad_x = grad_x + grad_a * 2
        if grad_b is not None:
            grad_x = grad_x + grad_b * 3
        return grad_x, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
for materialize in (True, False):
    a, b = TwoOutputs.apply(x, materialize)
    (grad,) = torch.autograd.grad(a.sum(), x)  # the loss uses a only
    print(grad)  # -> the same gradient both times
    #> tensor([2., 2.])
    #> tensor([2., 2.])
