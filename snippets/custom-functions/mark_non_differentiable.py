# docexec: figure=none
import torch


class ReluWithMask(torch.autograd.Function):
    """relu(x), and the float mask of where x > 0 as a second output."""

    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.mark_non_differentiable(mask)  # no gradient flows through mask
        ctx.save_for_backward(mask)
        return x * mask, mask

    @staticmethod
    def backward(ctx, grad_y, grad_mask):
        print("grad_mask:", grad_mask)  # -> still passed in, as zeros
        #> grad_mask: tensor([0., 0., 0.])
        (mask,) = ctx.saved_tensors
        return grad_y * mask


class ReluWithMaskUnmarked(ReluWithMask):
    @staticmethod
    def forward(ctx, x):
        mask = (x > 0).to(x.dtype)
        ctx.save_for_backward(mask)
        return x * mask, mask


x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y, mask = ReluWithMask.apply(x)
print(mask, mask.requires_grad)  # tensor([0., 1., 1.]) False
y.sum().backward()
print(x.grad)  # tensor([0., 1., 1.])

_, loose_mask = ReluWithMaskUnmarked.apply(x)
# without the mark, a float output looks differentiable to autograd
print(loose_mask)
#> tensor([0., 1., 1.], grad_fn=<ReluWithMaskUnmarkedBackward>)

# integer outputs, such as sort's indices, never require grad
values, indices = torch.sort(x)
print(values.requires_grad, indices.requires_grad)  # True False
