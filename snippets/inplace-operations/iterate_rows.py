import textwrap

import torch

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
y = w * 1  # a non-leaf

rows = list(y)  # iterating over y calls y.unbind(0)
print([type(row.grad_fn).__name__ for row in rows])
#> ['UnbindBackward0', 'UnbindBackward0']
print(rows[0].grad_fn is rows[1].grad_fn)  # True -> one call, one Node

try:
    for row in y:
        row.mul_(2)  # double each row in place
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: Output 0 of Unbind is a view and is being modified
    #> inplace. This view is the output of a function that returns multiple
    #> views. Such functions do not allow the output views to be modified
    #> inplace. You should replace the inplace operation by an out-of-place
    #> one.
print(y)  # -> unchanged: the refusal came first
#> tensor([[1., 2.],
#>         [3., 4.]], grad_fn=<MulBackward0>)

doubled = torch.stack([row * 2 for row in y])  # out of place: fine
print(doubled)
#> tensor([[2., 4.],
#>         [6., 8.]], grad_fn=<StackBackward0>)


def double_rows(t):
    for row in t:
        row.mul_(2)  # the same loop as above
    return t


# refused only when autograd would record the change: not for a tensor that
# requires no grad, nor for one that does, inside torch.no_grad()
print(double_rows(torch.tensor([[1.0, 2.0], [3.0, 4.0]])))
#> tensor([[2., 4.],
#>         [6., 8.]])
with torch.no_grad():
    print(double_rows(doubled))
    #> tensor([[ 4.,  8.],
    #>         [12., 16.]], grad_fn=<StackBackward0>)
