import torch

w = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)

# 1. A view of a leaf that requires grad, changed in place.
try:
    w[:2].mul_(2)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: a view of a leaf Variable that requires grad is being ...

# 2. One of several views returned by one call, such as split or unbind.
y = w * 1  # a non-leaf, so the refusal is about the views alone
first, second = y.split(2)
try:
    first.mul_(2)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Output 0 of Split is a view ... returns multiple views. ...
rows = y.unbind()
try:
    rows[0].add_(1)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Output 0 of Unbind is a view ... multiple views. ...

# 3. A view made under no_grad, changed in place with grad mode on.
with torch.no_grad():
    head = y[:2]
try:
    head.zero_()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: A view was created in no_grad mode and is being ...

# Refusals 1 to 3 came before anything was changed:
print(w)  # tensor([1., 2., 3., 4.], requires_grad=True)
print(y, y._version)  # tensor([1., 2., 3., 4.], grad_fn=<MulBackward0>) 0

# 4. An inference tensor, changed in place outside inference mode.
with torch.inference_mode():
    scores = torch.zeros(3)
try:
    scores.add_(1)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Inplace update to inference tensor outside ...
print(scores)  # tensor([1., 1., 1.]) -> this refusal came after the write
del y, first, second  # (no figure: this graph shows nothing new)
