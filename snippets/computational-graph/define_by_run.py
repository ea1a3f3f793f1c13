import torch


def chain(tensor):
    """Node names from tensor's grad_fn back to the leaf, along first inputs.

    Each name is shortened by the "Backward0" that ends it, to fit a line.
    """
    names, node = [], tensor.grad_fn
    while node is not None:
        names.append(type(node).__name__.removesuffix("Backward0"))
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
    #> 1 2.0 Mul <- AccumulateGrad
    #> 2 4.0 Mul <- Mul <- AccumulateGrad
    #> 4 6.0 Sub <- Mul <- Mul <- Mul <- Mul <- AccumulateGrad
