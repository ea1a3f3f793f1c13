# docexec: figure=versions
import textwrap

import torch

x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
y = torch.relu(x)  # relu's backward needs to know where its output was positive
# The Node that will need y, and y's version when it was saved:
print(type(y.grad_fn).__name__, y._version)  # ReluBackward0 0
print(torch.equal(y.grad_fn._saved_result, y))  # True -> it saved relu's output

y += 1  # modify that saved output in place
print(y._version)  # 1 -> one change later

try:
    y.sum().backward()
except RuntimeError as error:
    # The message is one long line: wrapped here to fit the page.
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: one of the variables needed for gradient computation has
    #> been modified by an inplace operation: [torch.FloatTensor [3]], which is
    #> output 0 of Relu, is at version 1; expected version 0 instead. Hint:
    #> enable anomaly detection to find the operation that failed to compute
    #> its gradient, with torch.autograd.set_detect_anomaly(True,
    #> check_nan=False).
