import torch
from torch.autograd.gradcheck import GradcheckError


class BadExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = x.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        (result,) = ctx.saved_tensors
        return 2 * grad_output * result  # wrong: a stray factor of 2


_x = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
try:
    torch.autograd.gradcheck(BadExp.apply, (_x,))
except GradcheckError as error:
    print(f"GradcheckError: {error}")
    #> GradcheckError: Jacobian mismatch for output 0 with respect to input 0,
    #> numerical:tensor([[1.0000, 0.0000],
    #> ...
    #> analytical:tensor([[2.0000, 0.0000],
    #> ...

# the same verdict, as a bool
ok = torch.autograd.gradcheck(BadExp.apply, (_x,), raise_exception=False)
print(ok)  # False
# so `except RuntimeError` catches it too
print(issubclass(GradcheckError, RuntimeError))  # True
# this name is the function, not the module: import the error class as above
print(torch.autograd.gradcheck)  # <function gradcheck at 0x…>
