import textwrap

import torch
from torch import nn
from torch.func import functional_call, grad

torch.manual_seed(0)
model = nn.Linear(3, 1)
params = {name: p.detach() for name, p in model.named_parameters()}
x = torch.randn(3)  # one sample


def score(params, x):
    return functional_call(model, params, (x,))


print(score(params, x).shape)  # torch.Size([1]) -> one element, one dimension

model(x).backward()  # backward() takes a one-element result as it is
print(model.bias.grad)  # tensor([1.])

try:
    grad(score)(params, x)  # grad does not
except RuntimeError as e:
    print(textwrap.fill(f"{type(e).__name__}: {e}", width=72))
    #> RuntimeError: grad_and_value(f)(*args): Expected f(*args) to return a
    #> scalar Tensor, got tensor with 1 dims. Maybe you wanted to use the vjp
    #> or jacrev APIs instead?


def score_0d(params, x):
    return score(params, x).squeeze(0)  # shape (): no dimension left


print(score_0d(params, x).shape)  # torch.Size([])
print(grad(score_0d)(params, x)["bias"])  # tensor([1.])
