import warnings

import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), 0.0)  # "sqrt, but 0 where x is 0"
print(y)  # tensor([0., 2.], grad_fn=<WhereBackward0>) -> the forward pass looks fine
y.sum().backward()
print(x.grad)  # tensor([   nan, 0.2500]) -> yet the gradient has a NaN, and nothing says where it came from

x.grad = None
with warnings.catch_warnings(record=True) as caught:  # anomaly mode reports through warnings
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():  # records forward tracebacks, checks every backward Node
        y = torch.where(x > 0, torch.sqrt(x), 0.0)
        try:
            y.sum().backward()
        except RuntimeError as error:
            print(f"RuntimeError: {error}")  # RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output. -> the first Node that produced a NaN, by name

# The warning holds a traceback of the forward call (full of this machine's file paths):
# its first line names the Node, its last line of code is where your forward pass created it.
report = next(str(warning.message) for warning in caught if "Error detected" in str(warning.message))
print(report.splitlines()[0])  # Error detected in SqrtBackward0. Traceback of forward call that caused the error:
print([line.strip() for line in report.splitlines() if line.startswith("    ")][-1])  # y = torch.where(x > 0, torch.sqrt(x), 0.0) -> the line that called torch.sqrt

# The fix: keep sqrt away from 0 in the branch that is thrown away.
x.grad = None
safe = torch.where(x > 0, x, 1.0)
y = torch.where(x > 0, torch.sqrt(safe), 0.0)
y.sum().backward()
print(x.grad)  # tensor([0.0000, 0.2500]) -> no NaN
