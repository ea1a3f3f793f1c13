# docexec: figure=none
import torch


def forward(x):
    out = x
    while out.item() < 10:  # the value decides how often the loop runs
        out = out * 3
    return out


def depth(tensor):
    """How many Nodes lie between tensor and its leaf's AccumulateGrad."""
    count, node = 0, tensor.grad_fn
    while node is not None and type(node).__name__ != "AccumulateGrad":
        count, node = count + 1, node.next_functions[0][0]
    return count


for start in (1.0, 5.0, 20.0):
    x = torch.tensor(start, requires_grad=True)
    out = forward(x)
    print(start, out.item(), depth(out), out.is_leaf)
    #> 1.0 27.0 3 False
    #> 5.0 15.0 1 False
    #> 20.0 20.0 0 True
