import torch


def saved_names(tensor):
    """The saved-value attributes of the Node that produced tensor."""
    return [name for name in dir(tensor.grad_fn) if name.startswith("_saved")]


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)

product = a * b  # d(a*b)/da = b and d(a*b)/db = a: both inputs are needed later
print(saved_names(product))  # ['_saved_other', '_saved_self'] -> what the multiplication's Node keeps
print(product.grad_fn._saved_self)  # tensor([1., 2.], requires_grad=True) -> the first input, a
print(product.grad_fn._saved_other)  # tensor([3., 4.], requires_grad=True) -> the second input, b
print(product.grad_fn._saved_self is a)  # True -> unpacking a saved leaf gives back the same tensor object

e = b.exp()  # d(exp b)/db = exp b: the output itself is what backward needs
print(saved_names(e))  # ['_saved_result']
print(e.grad_fn._saved_result.equal(e))  # True -> same values as e
print(e.grad_fn._saved_result is e)  # False -> but a different Python object

total = a + b  # d(a+b)/da = 1: no tensor is needed at all
print(saved_names(total))  # ['_saved_alpha'] -> only the constant alpha of a + alpha * b
print(total.grad_fn._saved_alpha)  # 1

loss = product.sum()  # the backward of sum only needs the input's shape
print(saved_names(loss))  # ['_saved_self_sym_sizes']
print(loss.grad_fn._saved_self_sym_sizes)  # (2,)
