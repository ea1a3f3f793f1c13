import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)
y = torch.exp(x).clamp(max=2.0)  # the cap is recorded, out of place

print(y)  # tensor([1., 2.], grad_fn=<ClampBackward1>)
y.sum().backward()
print(x.grad)  # tensor([1., 0.])
