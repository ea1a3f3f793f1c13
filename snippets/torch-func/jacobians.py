import torch
from torch.func import jacfwd, jacrev, jvp, vjp


def f(x):  # R^2 -> R^3: more outputs than inputs
    return torch.stack([x[0] * x[1], x[0] ** 2, x[1].sin()])


x = torch.tensor([2.0, 0.0])
J = jacrev(f)(x)
print(J)  # -> shape (outputs, inputs) = (3, 2)
#> tensor([[0., 2.],
#>         [4., 0.],
#>         [0., 1.]])
print(torch.allclose(J, jacfwd(f)(x)))  # True -> the same Jacobian either way

# jacrev builds J one row per output: a vjp with a one-hot cotangent
_, vjp_fn = vjp(f, x)
rows = [vjp_fn(e)[0] for e in torch.eye(3)]  # 3 outputs: 3 vjps
print(torch.equal(torch.stack(rows), J))  # True

# jacfwd builds J one column per input: a jvp with a one-hot tangent
cols = [jvp(f, (x,), (e,))[1] for e in torch.eye(2)]  # 2 inputs: 2 jvps
print(torch.equal(torch.stack(cols, dim=1), J))  # True
