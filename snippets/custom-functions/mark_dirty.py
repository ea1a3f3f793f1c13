# docexec: figure=none
import torch


class Double_(torch.autograd.Function):
    """Doubles its input in place, and says so with mark_dirty."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        ctx.mark_dirty(x)  # x was modified in place
        return x  # an in-place Function returns the tensor it modified

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 2


class DoubleUnmarked_(Double_):
    """The same, without mark_dirty."""

    @staticmethod
    def forward(ctx, x):
        x.mul_(2)
        return x


for Fn in (Double_, DoubleUnmarked_):
    a = torch.tensor([1.0, 2.0], requires_grad=True)
    h = a + 0  # a non-leaf to modify (a leaf that requires grad refuses)
    out = Fn.apply(h)
    print(Fn.__name__, out is h, h)  # -> is out h? and h's values and grad_fn
    #> Double_ True tensor([2., 4.], grad_fn=<Double_Backward>)
    #> DoubleUnmarked_ False tensor([2., 4.], grad_fn=<AddBackward0>)
    h.sum().backward()  # h = 2a now, so d(sum h)/da should be 2
    print(a.grad)  # -> unmarked, h kept its old grad_fn: the gradient is wrong
    #> tensor([2., 2.])
    #> tensor([1., 1.])

try:
    Double_.apply(a)  # a leaf that requires grad
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: a leaf Variable that requires grad has been used in an ...
