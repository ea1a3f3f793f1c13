import torch
from torch.autograd.function import FunctionCtx


class StraightThroughClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, low, high):
        # first the direct call, then .apply
        print("grad mode inside forward:", torch.is_grad_enabled())
        #> grad mode inside forward: True
        #> grad mode inside forward: False
        return x.clamp(low, high)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, None, None


x = torch.tensor([-2.0, 0.5, 3.0], requires_grad=True)

# a plain Python call
wrong = StraightThroughClamp.forward(FunctionCtx(), x, 0.0, 1.0)
right = StraightThroughClamp.apply(x, 0.0, 1.0)
print(wrong)  # -> the built-in clamp's Node, not yours
#> tensor([0.0000, 0.5000, 1.0000], grad_fn=<ClampBackward1>)
print(right)
#> tensor([0.0000, 0.5000, 1.0000], grad_fn=<StraightThroughClampBackward>)

# your backward never ran
print(torch.autograd.grad(wrong.sum(), x)[0])  # tensor([0., 1., 0.])
# the straight-through gradient
print(torch.autograd.grad(right.sum(), x)[0])  # tensor([1., 1., 1.])
