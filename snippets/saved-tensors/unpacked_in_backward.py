# docexec: figure=gradients+saved
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
y = x * w  # the multiplication saves both factors: x and w
z = y.exp()  # exp saves its own result: z
loss = z.sum()  # sum saves no tensor, only the input's shape

# each Node unpacks what it saved at its step, then lets go of it
loss.backward()
# x.grad is w * exp(x * w); w.grad is x * exp(x * w)
print(x.grad)  # tensor([ 0.8244, -0.1353])
print(w.grad)  # tensor([1.6487, 0.2707])
