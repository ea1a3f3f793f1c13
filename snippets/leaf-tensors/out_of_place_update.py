import torch

lr = 0.1
p = torch.tensor([1.0, 2.0], requires_grad=True)
(p ** 2).sum().backward()
print(p.grad)  # tensor([2., 4.]) -> the first gradient arrives as expected

p = p - lr * p.grad  # no error: this builds a new tensor and rebinds the name p
print(p.is_leaf, type(p.grad_fn).__name__)  # False SubBackward0 -> p is now the output of a subtraction

(p ** 2).sum().backward()
print(p.grad)  # None -> with a warning: the second step has no gradient to apply
