# docexec: figure=none
import torch
from torch import nn

torch.manual_seed(0)
layer = nn.Linear(3, 2)


def shapes(tensors):
    """The shape of each tensor in a tuple (None stays None)."""
    return [None if t is None else tuple(t.shape) for t in tensors]


def forward_pre(module, args):
    print("forward pre-hook:  args", shapes(args))
    #> forward pre-hook:  args [(4, 3)]


def forward(module, args, output):
    print("forward hook:      output", tuple(output.shape))
    #> forward hook:      output (4, 2)


def backward_pre(module, grad_output):
    print("backward pre-hook: grad_output", shapes(grad_output))
    #> backward pre-hook: grad_output [(4, 2)]


def backward(module, grad_input, grad_output):
    # grad_input: one entry per positional argument of forward, here x;
    # the gradients of weight and bias are not part of it
    print("backward hook:     grad_input", shapes(grad_input))
    #> backward hook:     grad_input [(4, 3)]


layer.register_forward_pre_hook(forward_pre)
layer.register_forward_hook(forward)
layer.register_full_backward_pre_hook(backward_pre)
layer.register_full_backward_hook(backward)

x = torch.randn(4, 3, requires_grad=True)
y = layer(x)  # calling the module runs the forward hooks
y.sum().backward()  # and the backward pass runs the backward hooks

print("layer.forward(x) runs no hook:")  # layer.forward(x) runs no hook:
z = layer.forward(x)  # skips Module.__call__, where the hooks live
z.sum().backward()
print(x.grad.shape)  # torch.Size([4, 3]) -> the gradient is still computed
