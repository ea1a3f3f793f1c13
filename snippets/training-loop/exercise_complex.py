# docexec: figure=none
import torch

z = torch.tensor(1.0 + 2.0j, requires_grad=True)
(z.real * z.imag).backward()
print(z.grad)  # tensor(2.+1.j)
