import torch

x = torch.tensor([1.0, 2.0])
w = torch.tensor([0.0, 0.0], requires_grad=True)

h = (x * w).exp()  # one forward pass, shared by two losses
loss_fit = ((h - 2) ** 2).sum()
loss_size = h.sum()

loss_fit.backward()
try:
    loss_size.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Trying to backward through the graph a second time ...
print(w.grad)  # tensor([-2., -4.])
