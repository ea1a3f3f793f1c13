# docexec: figure=versions
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)

# Case 1: a is an input the multiplication saved.
a = x * 2
b = a * w
a.add_(1)
try:
    b.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... which is output 0 of Add, is at version 1; ...

# Case 2: e is the output exp saved.
e = x.exp()
e.mul_(2)
try:
    e.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... which is output 0 of Exp, is at version 1; ...
