# docexec: figure=none
import torch


class Scale(torch.autograd.Function):
    """x * factor, where factor is a Python float."""

    @staticmethod
    def forward(ctx, x, factor, bias):
        ctx.save_for_backward(x, bias)  # tensors, or None (bias may be absent)
        ctx.factor = factor  # anything else: an ordinary attribute on ctx
        out = x * factor
        return out if bias is None else out + bias

    @staticmethod
    def backward(ctx, grad_output):
        x, bias = ctx.saved_tensors  # None comes back as None
        print("saved:", x, bias, "factor:", ctx.factor)
        #> saved: tensor([1., 2.], requires_grad=True) None factor: 3.0
        grad_bias = None if bias is None else grad_output
        return grad_output * ctx.factor, None, grad_bias


x = torch.tensor([1.0, 2.0], requires_grad=True)
Scale.apply(x, 3.0, None).sum().backward()
print(x.grad)  # tensor([3., 3.])


class SaveAFloat(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.save_for_backward(x, factor)  # a float is not accepted
        print("forward ran to its end")  # forward ran to its end -> no error
        return x * factor

    @staticmethod
    def backward(ctx, grad_output):
        x, factor = ctx.saved_tensors
        return grad_output * factor, None


try:
    SaveAFloat.apply(x, 3.0)  # the check runs once forward has returned
except TypeError as error:
    print(f"TypeError: {error}")
    #> TypeError: save_for_backward can only save variables...is of type float
