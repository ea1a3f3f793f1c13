import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Dropout(p=0.5))
x = torch.ones(1, 4)

model.eval()
out = model(x)
# eval() leaves the grad mode alone ...
print(model.training, torch.is_grad_enabled())  # False True
# ... and the forward pass was recorded as usual.
print(out.requires_grad, out.grad_fn is not None)  # True True

# What eval() really changes: in training mode, dropout zeroes and rescales;
drop = torch.nn.Dropout(p=0.5)
print(drop(torch.ones(6)))  # tensor([2., 2., 2., 0., 2., 2.])
drop.eval()
# in eval mode, it passes its input through.
print(drop(torch.ones(6)))  # tensor([1., 1., 1., 1., 1., 1.])

# For inference, use both: eval() for the layers, no_grad for autograd.
with torch.no_grad():
    checked = model(x)
print(checked.requires_grad)  # False
