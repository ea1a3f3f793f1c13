import warnings

import torch
from torch.autograd import gradcheck
from torch.autograd.gradcheck import GradcheckError

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)  # float32, the default

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        gradcheck(lambda t: t.sin() * t, (x,))  # the same correct function as before
    except GradcheckError as error:
        print(f"GradcheckError: {error}".rstrip())  # -> the numerical estimate is float32 rounding noise
        #> GradcheckError: Jacobian mismatch for output 0 with respect to input 0,
        #> numerical:tensor(...
        #> analytical:tensor([[0.9182, 0.0000, 0.0000],
        #>         [0.0000, 1.3818, 0.0000],
        #>         [0.0000, 0.0000, 0.0770]])
for warning in caught:
    print(warning.message)  # Input #0 requires gradient and is not a double precision floating point or complex. This check will likely fail if all the inputs are not of double precision floating point or complex.

print(gradcheck(lambda t: t.sin() * t, (x.detach().double().requires_grad_(),)))  # True -> float64: passes
