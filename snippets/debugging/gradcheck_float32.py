import warnings

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)  # float32, the default


def f(t):
    return t.sin() * t  # the same correct function as before


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        gradcheck(f, (x,))
    except GradcheckError as error:
        # the numerical estimate is float32 rounding noise
        print(f"GradcheckError: {error}".rstrip())
        #> GradcheckError: Jacobian mismatch for output 0 with respect to...
        #> numerical:tensor(...
        #> analytical:tensor([[0.9182, 0.0000, 0.0000],
        #>         [0.0000, 1.3818, 0.0000],
        #>         [0.0000, 0.0000, 0.0770]])
for warning in caught:
    print(warning.message)
    #> Input #0 requires gradient and is not a double precision floating ...

# float64: passes
print(gradcheck(f, (x.detach().double().requires_grad_(),)))  # True
