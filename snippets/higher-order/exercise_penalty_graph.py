# docexec: figure=gradients
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
x = torch.tensor([1.0, 3.0], requires_grad=True)
y = (w * x**2).sum()

(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)  # tensor([ 2., 12.], grad_fn=<MulBackward0>)
penalty = (g**2).sum()
penalty.backward()
print(w.grad, x.grad)  # tensor([  8., 144.]) tensor([ 8., 96.])
