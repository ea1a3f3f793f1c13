# docexec: figure=none
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
history = []
for scale in (1.0, 2.0, 3.0):
    loss = (scale * w).pow(2).sum()
    history.append(loss.item())  # a plain Python number, no history
print(history)  # [5.0, 20.0, 45.0]
