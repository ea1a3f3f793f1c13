import torch

x = torch.ones(2, 3, requires_grad=True)

# One operation, several Node classes: the suffix tells overloads apart.
print(type(x.mean().grad_fn).__name__)  # MeanBackward0 -> mean over everything
# mean over one dimension
print(type(x.mean(dim=1).grad_fn).__name__)  # MeanBackward1
print(type(x.sum().grad_fn).__name__)  # SumBackward0
print(type(x.sum(dim=1).grad_fn).__name__)  # SumBackward1
# a dtype cast
print(type(x.to(torch.float64).grad_fn).__name__)  # ToCopyBackward0

# When debugging, match on the operation, not the exact suffix.
# works whatever the suffix
print(x.mean(dim=1).grad_fn.name().startswith("MeanBackward"))  # True
