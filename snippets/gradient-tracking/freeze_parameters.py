import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
model.weight.requires_grad_(False)  # freeze the weight; the bias still trains
weight, bias = model.weight, model.bias

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
out = model(x)
out.sum().backward()
print(weight.grad)  # None -> frozen: no gradient
print(bias.grad)  # tensor([2.]) -> one contribution per row of x
# What an optimizer still needs:
print([name for name, p in model.named_parameters() if p.requires_grad])
#> ['bias']

# On a module, requires_grad_(False) freezes every parameter at once.
_all_frozen = torch.nn.Linear(3, 1).requires_grad_(False)
# Nothing requires grad, so nothing is recorded:
print(_all_frozen(x).grad_fn)  # None
