import torch

x = torch.tensor(2.0, requires_grad=True)

(first,) = torch.autograd.grad(x**4, x, create_graph=True)
print(first, first.requires_grad)  # tensor(32., grad_fn=<MulBackward0>) True
(second,) = torch.autograd.grad(first, x)
print(second)  # tensor(48.)

(plain,) = torch.autograd.grad(x**4, x)
print(plain, plain.requires_grad)  # tensor(32.) False
try:
    torch.autograd.grad(plain, x)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: element 0 of tensors does not require grad and does not...
del x, first  # no figure for this exercise
