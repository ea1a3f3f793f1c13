import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2  # three elements: there is no single number to seed with 1

try:
    y.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: grad can be implicitly created only for scalar outputs

# reduce to a scalar first (or pass gradient=torch.ones_like(y))
y.sum().backward()
print(x.grad)  # tensor([2., 2., 2.])
