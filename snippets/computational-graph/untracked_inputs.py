import torch

data = torch.tensor([1.0, 2.0])  # requires_grad defaults to False

# 1. Nothing in the computation requires grad: backward() refuses loudly.
loss = (data * 3).sum()
try:
    loss.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: element 0 of tensors does not require grad and does ...

# 2. Some inputs require grad: the others silently keep .grad = None.
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (w * data).sum()
loss.backward()
print(w.grad)  # tensor([1., 2.]) -> d(loss)/dw = data
print(data.grad)  # None -> no error, no warning

# 3. The graph was cut with detach(): the gradient silently stops there.
w = torch.tensor([0.5, -1.0], requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = (w.detach() * data).sum() + b
loss.backward()
print(b.grad)  # tensor(1.) -> b is still connected
print(w.grad)  # None -> w is not, and nothing says so
