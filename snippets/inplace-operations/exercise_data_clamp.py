# docexec: figure=versions
import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.exp(x)
y.data.clamp_(max=2.0)  # cap the values, "without bothering autograd"

print(y, y._version)  # tensor([1., 2.], grad_fn=<ExpBackward0>) 0
y.sum().backward()
print(x.grad)  # tensor([1., 2.])
