import torch

x = torch.tensor([-1.0, 0.5, 3.0], requires_grad=True)
act = torch.relu(x).clamp(max=1.0)  # out of place: relu's output is untouched

act.sum().backward()
print(act)  # tensor([0.0000, 0.5000, 1.0000], grad_fn=<ClampBackward1>)
print(x.grad)  # tensor([0., 1., 0.])
