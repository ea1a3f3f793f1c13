# docexec: figure=none
import torch

w = torch.tensor([3.0, 4.0], requires_grad=True)
norms = []  # meant to hold one gradient norm per step

for step in range(3):
    w.register_hook(lambda grad: norms.append(grad.norm().item()))
    w.grad = None
    (w * 2).sum().backward()
    print(step, len(norms))
    #> 0 1
    #> 1 3
    #> 2 6
