# docexec: figure=versions
import torch

x = torch.tensor([-1.0, 0.5, 3.0], requires_grad=True)
act = torch.relu(x)
act[act > 1] = 1.0  # cap the activations at 1

try:
    act.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... output 0 of Relu, is at version 1; expected ...
print(x.grad)  # None
