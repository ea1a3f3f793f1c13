import torch


class StraightThroughClamp(torch.autograd.Function):
    """Clamp in the forward pass, act as the identity in the backward pass."""

    @staticmethod
    def forward(ctx, x, low, high):  # low and high are plain Python floats
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        # one flag per forward input
        print(ctx.needs_input_grad)  # (True, False, False)
        # one entry per forward input: None for low and high
        return grad_output, None, None


x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)
y = StraightThroughClamp.apply(x, 0.0, 1.0)
print(y)
#> tensor([0.0000, 0.5000, 1.0000], grad_fn=<StraightThroughClampBackward>)
y.sum().backward()
# passed straight through, even where the clamp cut
print(x.grad)  # tensor([1., 1., 1.])

_x = x.detach().requires_grad_()
_x.clamp(0.0, 1.0).sum().backward()
# the built-in clamp: zero outside [0, 1]
print(_x.grad)  # tensor([0., 1., 0.])
