import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)

# A saved *input* that is a non-leaf: a is produced by an addition, and the
# multiplication saves it to compute w's gradient.
a = x + 1
y = a * w
a.zero_()  # the in-place change becomes a's grad_fn
print(type(a.grad_fn).__name__)  # ZeroBackward0
try:
    y.sum().backward()
except RuntimeError as error:
    # The message names zero_, which changed a, not the addition:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... [torch.FloatTensor [2]], which is output 0 of Zero, ...

# A saved input with no grad_fn at all: the message names no operation.
c = torch.tensor([3.0, 4.0])
z = x * c  # saves c to compute x's gradient
c.zero_()
try:
    z.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... [torch.FloatTensor [2]] is at version 1; expected ...
