import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)


def losses():
    """A fresh forward pass: two losses that share the leaf w."""
    return (w * 3).sum(), (w**2).sum() + b


# One backward pass that starts from both roots (each gets the seed 1)
l1, l2 = losses()
torch.autograd.backward([l1, l2])
print(w.grad, b.grad)  # tensor([5., 7.]) tensor(1.) -> 3 + 2w, and 1

# The same numbers as one root that adds the two losses
w.grad = b.grad = None
_l1, _l2 = losses()
(_l1 + _l2).backward()
print(w.grad, b.grad)  # tensor([5., 7.]) tensor(1.)

# inputs= picks the leaves that receive a gradient: b only, w is left alone
w.grad = b.grad = None
_l1, _l2 = losses()
_l2.backward(inputs=[b])
print(w.grad, b.grad)  # None tensor(1.)
