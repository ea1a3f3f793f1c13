import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)


def clip_inputs(grad_inputs, grad_outputs):
    # one gradient, for x ... but the Node has two inputs
    return (grad_inputs[0].clamp(max=10.0),)


y = x * 3
y.grad_fn.register_hook(clip_inputs)
try:
    (y * y).sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ...incorrect number of values (got 1, but expected 2)


def clip_inputs_fixed(grad_inputs, grad_outputs):
    # keep the None for the constant 3
    return (grad_inputs[0].clamp(max=10.0),) + grad_inputs[1:]


y = x * 3
y.grad_fn.register_hook(clip_inputs_fixed)
(y * y).sum().backward()
print(x.grad)  # tensor([10., 10.]) -> 18 and 36, clipped to 10
