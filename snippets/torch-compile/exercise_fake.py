import re
import textwrap

import numpy as np
import torch


@torch.library.custom_op("course::square", mutates_args=())
def square(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(x.numpy() ** 2)


def setup_context(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 2 * x


square.register_autograd(backward, setup_context=setup_context)

x = torch.tensor([1.0, 2.0], requires_grad=True)
square(x).sum().backward()
print(x.grad)  # tensor([2., 4.])

compiled = torch.compile(square, backend="aot_eager", fullgraph=True)
try:
    y = compiled(x)
except Exception as error:
    print(type(error).__name__)  # TorchRuntimeError
    cause = re.search(r"There was no fake impl[^.]*\.", str(error)).group()
    print(textwrap.fill(cause, 76))
    #> There was no fake impl registered for <CustomOpDef(course::square)>.

try:  # a tensor on the meta device has a shape but no data
    square(torch.empty(2, device="meta"))
except RuntimeError as error:
    print(str(error).split(".")[0])
    #> There was no fake impl registered for <CustomOpDef(course::square)>
