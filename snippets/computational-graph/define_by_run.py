import torch


def chain(tensor):
    """Names of the Nodes from tensor's grad_fn back to the leaf, following first inputs."""
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(type(node).__name__)
        node = node.next_functions[0][0] if node.next_functions else None
    return " <- ".join(names)


def forward(x, steps):
    y = x
    for _ in range(steps):  # ordinary Python decides how many operations run
        y = y * 2
    if y.sum() > 10:  # and which ones, from the values themselves
        y = y - 10
    return y


x = torch.tensor(1.0, requires_grad=True)
for steps in (1, 2, 4):
    out = forward(x, steps)
    print(steps, out.item(), chain(out))  # -> each call records a new graph
    #> 1 2.0 MulBackward0 <- AccumulateGrad
    #> 2 4.0 MulBackward0 <- MulBackward0 <- AccumulateGrad
    #> 4 6.0 SubBackward0 <- MulBackward0 <- MulBackward0 <- MulBackward0 <- MulBackward0 <- AccumulateGrad
