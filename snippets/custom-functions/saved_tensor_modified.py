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


x = torch.tensor([0.0, 1.0], requires_grad=True)
y = MyExp.apply(x)
print(y._version)  # 0 -> the version counter when forward saved y
y.mul_(2)  # in place, on the very tensor that forward saved
print(y._version)  # 1 -> every in-place operation bumps it
try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ...output 0 of MyExp, is at version 1; expected version...
