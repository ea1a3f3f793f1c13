# docexec: figure=gradients
import torch

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.0, 0.0], requires_grad=True)

h = (x * w).exp()
loss_fit = ((h - 2) ** 2).sum()
loss_size = h.sum()

# One backward pass that starts from both roots.
torch.autograd.backward([loss_fit, loss_size])
print(w.grad)  # tensor([-1., -2.]) -> both losses contributed
