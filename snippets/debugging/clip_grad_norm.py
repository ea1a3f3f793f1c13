# docexec: figure=none
import torch
from torch.nn.utils import clip_grad_norm_

a = torch.tensor([3.0, 0.0], requires_grad=True)
b = torch.tensor([4.0], requires_grad=True)
loss = (a**2).sum() / 2 + (b**2).sum() / 2  # gradients: a and b themselves
loss.backward()
print(a.grad, b.grad)  # tensor([3., 0.]) tensor([4.])

# one norm over all the gradients together: sqrt(3**2 + 0**2 + 4**2) = 5
total = clip_grad_norm_([a, b], max_norm=1.0)
print(total)  # tensor(5.) -> the norm before clipping
# every gradient scaled by max_norm / total = 1/5
print(a.grad, b.grad)  # tensor([0.6000, 0.0000]) tensor([0.8000])
print(clip_grad_norm_([a, b], max_norm=1.0))  # tensor(1.0000) -> now within

# a NaN or inf anywhere makes the norm non-finite: every gradient becomes NaN
a.grad = torch.tensor([float("nan"), 0.0])
total = clip_grad_norm_([a, b], max_norm=1.0)
print(total, b.grad)  # tensor(nan) tensor([nan])
try:
    clip_grad_norm_([a, b], max_norm=1.0, error_if_nonfinite=True)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: The total norm ... is non-finite, so it cannot be...
