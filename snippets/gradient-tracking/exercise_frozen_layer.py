import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
model[0].requires_grad_(False)  # freeze the first layer

x = torch.ones(1, 2)
h = model[0](x)
out = model[1](h)
out.sum().backward()

print(h.requires_grad, h.grad_fn)  # False None
print([name for name, p in model.named_parameters() if p.grad is not None])
#> ['1.weight', '1.bias']
