import torch

x = torch.tensor([[1.0, 2.0]])
w = torch.zeros(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True) + 0.1  # start the bias at 0.1

loss = (x @ w + b).pow(2).sum()
loss.backward()
print(w.grad.flatten())  # tensor([0.2000, 0.4000])
print(b.grad)  # None

try:
    torch.optim.SGD([w, b], lr=0.1)
except ValueError as error:
    print(f"ValueError: {error}")
    #> ValueError: can't optimize a non-leaf Tensor
