# docexec: figure=gradients
import torch

w = torch.tensor([0.5, -1.0], requires_grad=True)
hidden = w * torch.tensor([1.0, 2.0])
hidden.retain_grad()  # ask autograd to keep this non-leaf's gradient
print(hidden.retains_grad)  # True -> the flag retain_grad() switched on
w.retain_grad()  # on a leaf this does nothing: leaves keep .grad anyway
# Unchanged: the flag only ever describes non-leaves.
print(w.retains_grad)  # False

loss = (hidden ** 2).sum()
loss.backward(retain_graph=True)  # keep the graph for a second pass below
print(hidden.grad)  # tensor([ 1., -4.]) -> d(loss)/d(hidden) = 2 * hidden
print(w.grad)  # tensor([ 1., -8.]) -> the leaf's gradient, as before

# The request stays in force: a second pass adds to hidden.grad, as it
# adds to a leaf's.
loss.backward()
print(hidden.grad)  # tensor([ 2., -8.]) -> twice the gradient
print(hidden.retains_grad)  # True

untracked = torch.tensor([1.0, 2.0])
try:
    untracked.retain_grad()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: can't retain_grad on Tensor that has requires_grad=False
