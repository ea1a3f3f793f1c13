# docexec: figure=hooks+gradients
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w * 3
loss = (h * h).sum()

h.register_hook(lambda grad: grad.clamp(max=10.0))
loss.backward()
print(w.grad)  # tensor([18., 30.])
