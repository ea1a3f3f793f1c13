# docexec: figure=none
import torch

w = torch.tensor([3.0, 4.0], requires_grad=True)
norms = []

# registered once, before the loop: one hook, one entry per step
w.register_hook(lambda grad: norms.append(grad.norm().item()))
for step in range(3):
    w.grad = None
    (w * 2).sum().backward()
    print(step, len(norms))
    #> 0 1
    #> 1 2
    #> 2 3
