# docexec: figure=saved
import torch


def saved_names(tensor):
    """The saved-value attributes of the Node that produced tensor."""
    return [n for n in dir(tensor.grad_fn) if n.startswith("_saved")]


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)

# d(a*b)/da = b and d(a*b)/db = a: both inputs are needed later
product = a * b
# what the multiplication's Node keeps
print(saved_names(product))  # ['_saved_other', '_saved_self']
print(product.grad_fn._saved_self)  # tensor([1., 2.], requires_grad=True) -> a
print(product.grad_fn._saved_other)  # tensor([3., 4.], requires_grad=True) -> b

data = torch.tensor([5.0, 6.0])  # requires no grad
scaled = a * data  # only d/da = data will be computed
# data, kept for the gradient of a
print(scaled.grad_fn._saved_other)  # tensor([5., 6.])
# a is not kept: only the gradient of data would need it, and nobody asks
print(scaled.grad_fn._saved_self)  # None

e = b.exp()  # d(exp b)/db = exp b: the output itself is what backward needs
print(saved_names(e))  # ['_saved_result']
print(e.grad_fn._saved_result)  # -> the values of e
#> tensor([20.0855, 54.5981], grad_fn=<ExpBackward0>)

total = a + b  # d(a+b)/da = 1: no tensor is needed at all
# only the constant alpha of a + alpha * b
print(saved_names(total))  # ['_saved_alpha']
print(total.grad_fn._saved_alpha)  # 1

loss = product.sum()  # the backward of sum only needs the input's shape
print(saved_names(loss))  # ['_saved_self_sym_sizes']
print(loss.grad_fn._saved_self_sym_sizes)  # (2,)
