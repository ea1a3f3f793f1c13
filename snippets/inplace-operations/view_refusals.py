# docexec: figure=none
import textwrap

import torch

w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

# Each message is one long line: wrapped here to fit the page.
# 1. A view of a leaf that requires grad, changed in place.
try:
    w[:2].mul_(2)
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: a view of a leaf Variable that requires grad is being used
    #> in an in-place operation.

# 2. One of several views returned by one call, such as split or unbind.
y = w * 1  # a non-leaf, so the refusal is about the views alone
first, second = y.split(2)
try:
    first.mul_(2)
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: Output 0 of Split is a view and is being modified inplace.
    #> This view is the output of a function that returns multiple views. Such
    #> functions do not allow the output views to be modified inplace. You
    #> should replace the inplace operation by an out-of-place one.
rows = y.unbind()
try:
    rows[0].add_(1)
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: Output 0 of Unbind is a view and is being modified
    #> inplace. This view is the output of a function that returns multiple
    #> views. Such functions do not allow the output views to be modified
    #> inplace. You should replace the inplace operation by an out-of-place
    #> one.

# 3. A view made under no_grad, changed in place with grad mode on.
with torch.no_grad():
    head = y[:2]
try:
    head.zero_()
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: A view was created in no_grad mode and is being modified
    #> inplace with grad mode enabled. Given that this use case is ambiguous
    #> and error-prone, it is forbidden. You can clarify your code by moving
    #> both the view and the inplace either both inside the no_grad block (if
    #> you don't want the inplace to be tracked) or both outside (if you want
    #> the inplace to be tracked).

# Refusals 1 to 3 came before anything was changed:
print(w)  # tensor([1., 2., 3., 4.], requires_grad=True)
print(y, y._version)  # tensor([1., 2., 3., 4.], grad_fn=<MulBackward0>) 0

# 4. An inference tensor, changed in place outside inference mode.
with torch.inference_mode():
    scores = torch.zeros(3)
try:
    scores.add_(1)
except RuntimeError as error:
    print(textwrap.fill(f"RuntimeError: {error}", width=72))
    #> RuntimeError: Inplace update to inference tensor outside InferenceMode
    #> is not allowed.You can make a clone to get a normal tensor before doing
    #> inplace update.See https://github.com/pytorch/rfcs/pull/17 for more
    #> details.
print(scores)  # tensor([1., 1., 1.]) -> this refusal came after the write
