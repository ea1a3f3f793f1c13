import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2  # a non-leaf; multiplying by a constant saves nothing of y
print(type(y.grad_fn).__name__)  # MulBackward0

tail = y[1:]  # a view of y's last two elements
tail.mul_(3)  # changed in place through the view ...
# ... and recorded on the base: y gets a new grad_fn.
print(y)  # tensor([ 2., 12., 18.], grad_fn=<CopySlices>)

y[0] = 10.0  # overwrite one element: a second change through a view
print(y)  # tensor([10., 12., 18.], grad_fn=<CopySlices>)

y.sum().backward()
# y[0] no longer depends on x[0], so x[0] gets 0; the others get 2 * 3.
print(x.grad)  # tensor([0., 6., 6.])
