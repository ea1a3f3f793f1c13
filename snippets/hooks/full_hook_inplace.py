# docexec: figure=none
import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)


def report(module, grad_input, grad_output):
    print("hook on the Linear: grad_input", tuple(grad_input[0].shape))
    #> hook on the Linear: grad_input (4, 3)


linear = nn.Linear(3, 2)
linear.register_full_backward_hook(report)
model = nn.Sequential(linear, nn.ReLU(inplace=True))  # relu_ on linear's output
try:
    model(x)  # fails in the forward pass, at the in-place relu
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Output 0 of BackwardHookFunction...modified inplace...

model = nn.Sequential(linear, nn.ReLU())  # the same model, out-of-place relu
model(x).sum().backward()
