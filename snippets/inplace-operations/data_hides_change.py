import torch

# .detach() shares the version counter: a later backward notices the change.
x = torch.tensor(0.0, requires_grad=True)
y = torch.exp(x)
y.detach().add_(1)
print(y._version)  # 1 -> the change is counted
try:
    y.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: one of the variables needed for gradient computation ...


# .data does not: the change goes unnoticed and the gradient is silently wrong.
x = torch.tensor(0.0, requires_grad=True)
y = torch.exp(x)
y.data.add_(1)
print(y._version)  # 0 -> nothing counted
y.backward()
# But d(exp(x))/dx at 0 is 1.0: backward used the modified saved output.
print(x.grad)  # tensor(2.)
