# docexec: figure=versions
import torch

x = torch.tensor([0.5, 1.0], requires_grad=True)
a = x.exp()
b = a + 1
c = b * x
a.mul_(2)

print(a._version, b._version, c._version)  # 1 0 0
try:
    c.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... which is output 0 of Exp, is at version 1; ...
