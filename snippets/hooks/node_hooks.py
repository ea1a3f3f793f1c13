# docexec: figure=hooks+gradients
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
loss = (y * y).sum()
# the Node that will compute the gradient for x from the gradient for y
node = y.grad_fn


def before(grad_outputs):
    """Prehook: runs before the Node, sees the gradients flowing into it."""
    print("prehook: grad_outputs =", grad_outputs)  # -> d(loss)/dy = 2y
    #> prehook: grad_outputs = (tensor([ 6., 12.]),)


def after(grad_inputs, grad_outputs):
    """Hook: runs after the Node, sees what it computed for each input."""
    # one entry per input of y = x * 3; None for the constant
    print("hook:    grad_inputs  =", grad_inputs)
    #> hook:    grad_inputs  = (tensor([18., 36.]), None)


node.register_prehook(before)
node.register_hook(after)
loss.backward()
# what the Node computed for x, accumulated into its .grad
print(x.grad)  # tensor([18., 36.])
