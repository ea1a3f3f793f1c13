# docexec: figure=none
import torch
from torch.autograd.graph import allow_mutation_on_saved_tensors

x = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    y = x.clone()
    z = y.sin()  # SinBackward0 saves y
    y.mul_(2)  # and y changes before backward
    z.sum().backward()
except RuntimeError as error:
    print(str(error).split(" by ")[0])
    #> one of the variables needed for gradient computation has been modified

with allow_mutation_on_saved_tensors():
    y = x.clone()
    z = y.sin()
    y.mul_(2)  # y is copied before the change, for SinBackward0
    z.sum().backward()
print(x.grad)  # tensor([ 0.5403, -0.4161]) -> cos(x): the saved y was used
print(y)  # tensor([2., 4.], grad_fn=<MulBackward0>)

with allow_mutation_on_saved_tensors():
    z = x.clone().sin()
try:  # backward() outside the context the graph was recorded in
    z.sum().backward()
except AssertionError as error:
    print(str(error).split(" context")[0])
    #> Trying to backward outside of the 'allow_mutation_on_saved_tensors'
