import warnings

import torch

# anomaly mode also warns with a forward traceback (the previous example)
warnings.simplefilter("ignore")
x = torch.tensor([0.0, 4.0], requires_grad=True)

with torch.autograd.detect_anomaly():
    torch.sqrt(x).sum().backward()  # d sqrt(x)/dx = 1 / (2 sqrt(x)): inf at 0
print(x.grad)  # tensor([   inf, 0.2500]) -> an inf passes without a word

x.grad = None
with torch.autograd.detect_anomaly():
    try:
        # the gradient into sqrt is 0 here, and 0 / (2 * sqrt(0)) is NaN
        (torch.sqrt(x) * 0).sum().backward()
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
        #> RuntimeError: Function 'SqrtBackward0' returned nan values in...
