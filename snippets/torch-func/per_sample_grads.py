import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
model = nn.Linear(3, 1)
X = torch.randn(4, 3)  # a batch of 4 samples
Y = torch.randn(4, 1)

# the parameters become an ordinary argument: a dict of plain tensors
params = {name: p.detach() for name, p in model.named_parameters()}


def loss_fn(params, x, y):  # the loss of ONE sample, as a pure function
    pred = functional_call(model, params, (x,))  # model, with these params
    return F.mse_loss(pred, y)


# same params for every sample (None); samples along dim 0 of X and Y
per_sample = vmap(grad(loss_fn), in_dims=(None, 0, 0))(params, X, Y)
print({name: tuple(g.shape) for name, g in per_sample.items()})
#> {'weight': (4, 1, 3), 'bias': (4, 1)}

# the same, the slow way: one ordinary backward() per sample
for i in range(4):
    model.zero_grad()
    F.mse_loss(model(X[i]), Y[i]).backward()
    print(
        torch.allclose(per_sample["weight"][i], model.weight.grad),
        torch.allclose(per_sample["bias"][i], model.bias.grad),
    )
    #> True True
    #> True True
    #> True True
    #> True True

# their mean is the gradient of the mean loss over the batch
model.zero_grad()
F.mse_loss(model(X), Y).backward()
print(torch.allclose(per_sample["weight"].mean(0), model.weight.grad))  # True
