# docexec: figure=none
import torch

torch.manual_seed(0)
critic = torch.nn.Linear(2, 1)
x = torch.randn(4, 2, requires_grad=True)

scores = critic(x)
(grad_x,) = torch.autograd.grad(scores.sum(), x, retain_graph=True)
penalty = ((grad_x.norm(dim=1) - 1) ** 2).mean()  # create_graph forgotten
print(penalty)  # tensor(0.3852) -> right value, no grad_fn

# alone, the penalty cannot be differentiated at all
try:
    penalty.backward()
except RuntimeError as e:
    print(f"RuntimeError: {e}")
    #> RuntimeError: element 0 of tensors does not require grad and does ...

# added to a loss, it is silently treated as a constant
loss = scores.mean() + 10 * penalty
loss.backward()
print(critic.weight.grad)  # tensor([[0.3355, 0.5392]])
# that is the gradient of scores.mean() alone: the penalty added nothing
print(torch.allclose(critic.weight.grad, x.detach().mean(dim=0)))  # True
