import torch
import torch.autograd.forward_ad as fwAD

a = torch.tensor([[0.0, 0.0], [1.0, 1.0]])
b = torch.tensor([[3.0, 4.0], [1.0, 0.0]])
move = torch.tensor([[1.0, 0.0], [0.0, 0.0]])  # a[0] moves along x


def distances(a, b):  # what cdist computes, from basic operations
    return (a[:, None, :] - b[None, :, :]).pow(2).sum(-1).sqrt()


class Double(torch.autograd.Function):  # a backward, but no jvp
    @staticmethod
    def forward(ctx, x):
        return 2 * x

    @staticmethod
    def backward(ctx, grad):
        return 2 * grad


with fwAD.dual_level():
    dual_a = fwAD.make_dual(a, move)
    try:
        torch.cdist(dual_a, b)
    except NotImplementedError as e:
        print(f"NotImplementedError: {e}")
        #> NotImplementedError: ..._cdist_forward ...not been implemented yet.
        #> Please file an issue to PyTorch at ...
    try:
        Double.apply(dual_a)
    except NotImplementedError as e:
        print(f"NotImplementedError: {e}")
        #> NotImplementedError: You must implement the jvp function for ...AD.

    out = distances(dual_a, b)  # the workaround: basic operations
    primal, tangent = fwAD.unpack_dual(out)
    print(torch.allclose(primal, torch.cdist(a, b)))  # True -> same values
    print(tangent)
    #> tensor([[-0.6000, -1.0000],
    #>         [ 0.0000,  0.0000]])
