# docexec: figure=none
import torch
from torch.autograd.graph import saved_tensors_hooks

a = torch.tensor([1.0, 2.0], requires_grad=True)
h = a * 2  # a non-leaf

s = h.sin()  # sin saves its input
# a saved non-leaf input comes back as the same object
print(s.grad_fn._saved_self is h)  # True
p = a * h  # the multiplication saves both inputs
# and so does a saved leaf input
print(p.grad_fn._saved_self is a)  # True

e = h.exp()  # exp saves its output
print(e.grad_fn._saved_result is e)  # False -> a saved output: another object
print(e.grad_fn._saved_result.equal(e))  # True -> with the same values

with saved_tensors_hooks(lambda t: t.detach(), lambda packed: packed):
    s2 = h.sin()  # the same operation, saved through a pack/unpack pair
back = s2.grad_fn._saved_self
print(back is h)  # False -> now unpack decides which object comes back
# same values, and the same grad_fn as h
print(back.equal(h), type(back.grad_fn).__name__)  # True MulBackward0
