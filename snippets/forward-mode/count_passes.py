import torch
import torch.autograd.forward_ad as fwAD


def jacobian_forward(f, x):
    """One forward pass per input direction; each gives a column."""
    columns = []
    for e in torch.eye(x.numel()):
        with fwAD.dual_level():
            out = f(fwAD.make_dual(x, e))
            columns.append(fwAD.unpack_dual(out).tangent)
    return torch.stack(columns, dim=1), len(columns)


def jacobian_reverse(f, x):
    """One backward pass per output; each gives a row."""
    x = x.detach().requires_grad_()
    y = f(x)
    rows = []
    for e in torch.eye(y.numel()):
        (row,) = torch.autograd.grad(y, x, e, retain_graph=True)
        rows.append(row)
    return torch.stack(rows), len(rows)


def tall(x):  # R^2 -> R^6
    return torch.cat([x.sin(), x.cos(), x * x.prod()])


def wide(x):  # R^6 -> R^1
    return (x**2).sum().reshape(1)


torch.manual_seed(0)
for f, x in [(tall, torch.randn(2)), (wide, torch.randn(6))]:
    J_fwd, fwd_passes = jacobian_forward(f, x)
    J_rev, rev_passes = jacobian_reverse(f, x)
    same = torch.allclose(J_fwd, J_rev)
    print(f.__name__, tuple(J_fwd.shape), fwd_passes, rev_passes, same)
    #> tall (6, 2) 2 6 True
    #> wide (1, 6) 6 1 True
