import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

# float64: see Pitfall 1
x = torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64, requires_grad=True)

# analytical and numerical Jacobians agree
print(gradcheck(lambda t: t.sin() * t, (x,)))  # True


class BadSquare(torch.autograd.Function):
    """t * t with a deliberately wrong backward: the factor 2 is missing."""

    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad_output):
        (t,) = ctx.saved_tensors
        return grad_output * t  # should be grad_output * 2 * t


try:
    gradcheck(BadSquare.apply, (x,))
except GradcheckError as error:
    # numerical is twice analytical: the missing factor 2
    print(f"GradcheckError: {error}".rstrip())
    #> GradcheckError: Jacobian mismatch for output 0 with respect to input 0,
    #> numerical:tensor([[1.0000, 0.0000, 0.0000],
    #>         [0.0000, 2.0000, 0.0000],
    #>         [0.0000, 0.0000, 4.0000]], dtype=torch.float64)
    #> analytical:tensor([[0.5000, 0.0000, 0.0000],
    #>         [0.0000, 1.0000, 0.0000],
    #>         [0.0000, 0.0000, 2.0000]], dtype=torch.float64)
