import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return grad_output * result


_x = torch.tensor([-1.0, 0.0, 0.5, 2.0], dtype=torch.float64,
                  requires_grad=True)
# backward agrees with finite differences
print(torch.autograd.gradcheck(MyExp.apply, (_x,)))  # True
# and so does the derivative of backward itself
print(torch.autograd.gradgradcheck(MyExp.apply, (_x,)))  # True
