import warnings

import torch
from torch.autograd import gradcheck


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * 2 * t


x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    print(gradcheck(Square.apply, (x,), raise_exception=False))  # False
