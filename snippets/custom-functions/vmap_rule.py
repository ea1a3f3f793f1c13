import torch
from torch.func import vmap


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x**3

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x**2


xs = torch.tensor([1.0, 2.0, 3.0])
try:
    vmap(Cube.apply)(xs)  # vmap needs a rule for batching Cube
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ...vmap over Cube...set generate_vmap_rule=True...


class BatchedCube(Cube):
    # let PyTorch derive the batching rule by running forward under vmap
    generate_vmap_rule = True


print(vmap(BatchedCube.apply)(xs))  # tensor([ 1.,  8., 27.])
