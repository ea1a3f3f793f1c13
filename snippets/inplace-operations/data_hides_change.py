import torch

# .detach() shares the version counter: a later backward notices the change.
x = torch.tensor(0.0, requires_grad=True)
y = torch.exp(x)
y.detach().add_(1)
print(y._version)  # 1 -> the change is counted
try:
    y.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")  # RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: ... output 0 of Exp, is at version 1; expected version 0 instead. ...

# .data does not: the change goes unnoticed and the gradient is silently wrong.
x = torch.tensor(0.0, requires_grad=True)
y = torch.exp(x)
y.data.add_(1)
print(y._version)  # 0 -> nothing counted
y.backward()
print(x.grad)  # tensor(2.) -> but d(exp(x))/dx at 0 is 1.0: backward used the modified saved output
