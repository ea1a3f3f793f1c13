import torch

x = torch.tensor([1.0, 2.0])
W = torch.tensor([[1.0], [-0.5]], requires_grad=True)
loss = (x @ W).exp().mean()  # exp keeps its result for the backward pass

loss.backward()  # frees the saved tensors as it goes
try:
    loss.backward()
except RuntimeError as error:
    # the message names the cause and the way out, retain_graph=True
    print(f"RuntimeError: {error}")
    #> RuntimeError: ...through the graph a second time...retain_graph=True...

b = torch.tensor([1.0, 2.0], requires_grad=True)
total = (b + 1).sum()  # neither Node here needs a saved tensor
total.backward()
total.backward()  # no retain_graph, and no error
print(b.grad)  # tensor([2., 2.]) -> but the gradient was added twice
