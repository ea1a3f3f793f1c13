# docexec: figure=gradients+saved
import torch


class MyExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        # exp is its own derivative: keep the output
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        # chain rule: upstream gradient times d exp(x)/dx
        return grad_output * result


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = MyExp.apply(x)  # always call a Function through .apply
print(y)  # tensor([1.0000, 2.7183, 7.3891], grad_fn=<MyExpBackward>)
# the Node is named after your class
print(type(y.grad_fn).__name__)  # MyExpBackward
# a Node like any built-in one
print(isinstance(y.grad_fn, torch.autograd.graph.Node))  # True

y.sum().backward()
# the same gradient as the built-in exp
print(torch.allclose(x.grad, torch.exp(x)))  # True
