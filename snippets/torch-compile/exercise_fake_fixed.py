import numpy as np
import torch


@torch.library.custom_op("course::square", mutates_args=())
def square(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(x.numpy() ** 2)


@square.register_fake
def _(x):  # what compile needs: the result's shape, dtype and device
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 2 * x


square.register_autograd(backward, setup_context=setup_context)

x = torch.tensor([1.0, 2.0], requires_grad=True)
checks = torch.library.opcheck(square, (x,))
print(checks["test_faketensor"])  # SUCCESS

y = torch.compile(square, backend="aot_eager", fullgraph=True)(x)
y.sum().backward()
print(x.grad)  # tensor([2., 4.])
