import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
product = a * b
loss = product.sum()

# before backward: b is still held by the graph
print(product.grad_fn._saved_other)  # tensor([3., 4.], requires_grad=True)

loss.backward()  # uses the saved tensors, then frees them
print(a.grad)  # tensor([3., 4.]) -> d(loss)/da = b

try:
    product.grad_fn._saved_other
except RuntimeError as error:
    # reading a freed saved tensor
    print(f"RuntimeError: {error}")
    #> RuntimeError: Trying to backward through the graph a second time (or ...

try:
    loss.backward()  # a second pass would need the same saved tensors
except RuntimeError as error:
    # the very same message
    print(f"RuntimeError: {error}")
    #> RuntimeError: Trying to backward through the graph a second time (or ...

kept = a * b  # a new graph
kept.sum().backward(retain_graph=True)  # asks the graph to keep what it saved
# still readable, and still using memory
print(kept.grad_fn._saved_other)  # tensor([3., 4.], requires_grad=True)
