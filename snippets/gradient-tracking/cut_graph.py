# docexec: figure=cuts
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
weight, bias = model.weight, model.bias
x = torch.tensor([[1.0, 2.0]])
target = torch.tensor([[1.0]])

out = model(x)
# Both give a tensor with no history:
print(out.detach().grad_fn, out.data.grad_fn)  # None None
prediction = out.detach()  # the graph stops here
loss = ((prediction - target) ** 2).mean()
try:
    loss.backward()
except RuntimeError as error:
    print("RuntimeError:", error)
    #> RuntimeError: element 0 of tensors does not require grad and does ...

loss.requires_grad = True  # the tempting "fix": allowed, because loss is a leaf
loss.backward()  # runs without complaint...
print(weight.grad, bias.grad)  # None None -> ...and the model got no gradient
# loss is a new leaf, with nothing behind it:
print(loss.is_leaf, loss.grad_fn)  # True None
print(loss.grad)  # tensor(1.) -> the seed gradient stopped at loss itself

# The real fix: the loss computed from out itself.
fixed_loss = ((out - target) ** 2).mean()
fixed_loss.backward()
# Now the model gets its gradients:
print(weight.grad is not None, bias.grad is not None)  # True True
