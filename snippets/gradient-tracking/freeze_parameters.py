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
print([name for name, p in model.named_parameters() if p.requires_grad])  # ['bias'] -> what an optimizer still needs

_all_frozen = torch.nn.Linear(3, 1).requires_grad_(False)  # on a module: every parameter at once
print(_all_frozen(x).grad_fn)  # None -> nothing requires grad, so nothing is recorded
