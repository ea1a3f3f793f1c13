import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)


def gradient():
    """A fresh forward and backward pass; returns the gradient of w."""
    w.grad = None
    loss = (5 * w**2).sum()  # d(loss)/dw = 10 * w
    loss.backward()
    return w.grad


print(gradient())  # tensor([ 10., -20.]) -> no hook: 10 * w

# the hook returns a tensor: it replaces the gradient
handle = w.register_hook(lambda grad: grad.clamp(-5.0, 5.0))
print(gradient())  # tensor([ 5., -5.]) -> clipped before it reaches w.grad

# every register_hook returns a handle; remove() takes the hook off
handle.remove()
print(gradient())  # tensor([ 10., -20.]) -> unclipped again
