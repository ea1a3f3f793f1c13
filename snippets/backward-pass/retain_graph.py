import torch

x = torch.tensor([1.0, 2.0])
W = torch.tensor([[1.0], [-0.5]], requires_grad=True)
loss = (x @ W).exp().mean()  # x @ W is 0 here, so exp(...) is 1

# keep the graph's saved tensors after this pass
loss.backward(retain_graph=True)
print(W.grad)  # -> d loss / dW = x * exp(x @ W)
#> tensor([[1.],
#>         [2.]])
loss.backward()  # a second pass over the same graph; this one frees it
print(W.grad)  # -> both passes added into .grad
#> tensor([[2.],
#>         [4.]])
