import torch
from torch import nn


class Combine(nn.Module):
    def forward(self, a, scale, b, c=None):
        out = a * scale + b
        return out if c is None else out + c


def show(module, grad_input, grad_output):
    print("grad_input:", grad_input)
    #> grad_input: (tensor([2., 2.]), None, tensor([0., 0.]))
    #> grad_input: (tensor([2., 2.]), None, tensor([0., 0.]), tensor([1., 1.]))


combine = Combine()
combine.register_full_backward_hook(show)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0])  # does not require grad
c = torch.tensor([5.0, 6.0], requires_grad=True)

out = combine(a, 2.0, b, c=c)  # c passed as a keyword argument
out.sum().backward()
# c's gradient was computed all the same; the hook just never saw it
print(c.grad)  # tensor([1., 1.])

# passed positionally, c gets an entry: what counts is how the call passes it
combine(a, 2.0, b, c).sum().backward()
