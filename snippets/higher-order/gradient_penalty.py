# docexec: figure=gradients draw=critic.weight+critic.bias+x+scores+grad_x+penalty
import torch

torch.manual_seed(0)
critic = torch.nn.Linear(2, 1)
x = torch.randn(4, 2, requires_grad=True)  # the points the penalty looks at

scores = critic(x)
# how each score changes with its input, kept differentiable
(grad_x,) = torch.autograd.grad(scores.sum(), x, create_graph=True)
penalty = ((grad_x.norm(dim=1) - 1) ** 2).mean()
print(penalty)  # tensor(0.3852, grad_fn=<MeanBackward0>)

penalty.backward()  # the penalty's own gradient reaches the weights
print(critic.weight.grad)  # tensor([[ 0.0173, -1.2412]])
print(critic.bias.grad)  # None -> the input gradient of a Linear ignores bias

# check by hand: for a Linear critic grad_x is the weight row w at every
# point, so the penalty is (|w| - 1)**2 and its gradient 2(|w| - 1) w / |w|
w = critic.weight.detach()
by_hand = 2 * (w.norm() - 1) * w / w.norm()
print(torch.allclose(critic.weight.grad, by_hand))  # True
