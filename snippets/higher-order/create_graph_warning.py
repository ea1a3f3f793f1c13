# docexec: draw=w+w.grad
import textwrap
import warnings

import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)


def warnings_from(step):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step()
    return [str(warning.message) for warning in caught]


def grad_call():
    torch.autograd.grad((w**3).sum(), w, create_graph=True)


def backward_call():
    (w**3).sum().backward(create_graph=True)


print(warnings_from(grad_call))  # [] -> autograd.grad: no warning

(message,) = warnings_from(backward_call)
for line in textwrap.wrap(message, width=72):
    print(line)
    #> Using backward() with create_graph=True will create a reference cycle
    #> between the parameter and its gradient which can cause a memory leak. We
    #> recommend using autograd.grad when creating the graph to avoid this. If
    #> you have to use this function, make sure to reset the .grad fields of
    #> your parameters to None after use to break the cycle and avoid the leak.
    #> (Triggered internally at
    #> .../torch/csrc/autograd/engine.cpp:...)
print(w.grad)  # tensor([ 3., 12.], grad_fn=<CopyBackwards>)

w.grad = None  # as the warning advises: this gradient's cycle is broken
print(warnings_from(backward_call))  # [] -> shown once per process only
