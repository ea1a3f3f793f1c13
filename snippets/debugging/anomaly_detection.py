import warnings

import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
y = torch.where(x > 0, torch.sqrt(x), 0.0)  # "sqrt, but 0 where x is 0"
# the forward pass looks fine
print(y)  # tensor([0., 2.], grad_fn=<WhereBackward0>)
y.sum().backward()
# yet the gradient has a NaN, and nothing says where it came from
print(x.grad)  # tensor([   nan, 0.2500])

x.grad = None
# anomaly mode reports through warnings, and records forward tracebacks
# and checks every backward Node while it is on
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    with torch.autograd.detect_anomaly():
        y = torch.where(x > 0, torch.sqrt(x), 0.0)
        try:
            y.sum().backward()
        except RuntimeError as error:
            # the first Node that produced a NaN, by name
            print(f"RuntimeError: {error}")
            #> RuntimeError: Function 'SqrtBackward0' returned nan values...

# The warning holds a traceback of the forward call (full of file paths):
# its first line names the Node, its last line of code is where your
# forward pass created it.
messages = [str(warning.message) for warning in caught]
report = next(m for m in messages if "Error detected" in m)
print(report.splitlines()[0])
#> Error detected in SqrtBackward0. Traceback of forward call that caused the...
code = [line.strip() for line in report.splitlines() if line.startswith("    ")]
print(code[-1])  # -> the line that called torch.sqrt
#> y = torch.where(x > 0, torch.sqrt(x), 0.0)

# The fix: keep sqrt away from 0 in the branch that is thrown away.
x.grad = None
safe = torch.where(x > 0, x, 1.0)
y = torch.where(x > 0, torch.sqrt(safe), 0.0)
y.sum().backward()
print(x.grad)  # tensor([0.0000, 0.2500]) -> no NaN
