import torch

A = torch.tensor([[1.0, 2.0, 0.0],
                  [0.0, 1.0, -1.0]])
x = torch.tensor([1.0, 1.0, 2.0], requires_grad=True)
y = A @ x  # two outputs from three inputs

# the Jacobian dy/dx, here A itself
print(torch.autograd.functional.jacobian(lambda t: A @ t, x))
#> tensor([[ 1.,  2.,  0.],
#>         [ 0.,  1., -1.]])

v = torch.tensor([1.0, 10.0])  # one weight per output
y.backward(gradient=v)  # backward computes v @ J, never J itself
print(x.grad)  # tensor([  1.,  12., -10.]) -> row 0 of A, plus 10 times row 1
# the same vector-Jacobian product, by hand
print(v @ A)  # tensor([  1.,  12., -10.])

x.grad = None
(v * (A @ x)).sum().backward()  # a scalar whose gradient is the same product
# passing gradient=v is backward() of the weighted sum
print(x.grad)  # tensor([  1.,  12., -10.])
