# docexec: figure=cuts
import torch

w = torch.tensor(3.0, requires_grad=True)
y = w * 2
d = y.detach()
loss = d * w + y

loss.backward()
print(loss)  # tensor(24., grad_fn=<AddBackward0>)
print(w.grad)  # tensor(8.)
