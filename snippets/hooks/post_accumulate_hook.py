# docexec: figure=none
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)


def before(grad):
    """A tensor hook: gets the gradient before it is added into w.grad."""
    print("tensor hook:     grad", grad, "w.grad", w.grad)
    #> tensor hook:     grad tensor([3., 3.]) w.grad None
    #> tensor hook:     grad tensor([3., 3.]) w.grad tensor([3., 3.])


def after(param):
    """A post-accumulate hook: gets w itself, once w.grad is up to date."""
    print("post-accumulate: w.grad", param.grad)
    #> post-accumulate: w.grad tensor([3., 3.])
    #> post-accumulate: w.grad tensor([6., 6.])


w.register_hook(before)
w.register_post_accumulate_grad_hook(after)
(w * 3).sum().backward()
(w * 3).sum().backward()  # no reset: the second gradient adds to the first

h = w * 2  # a non-leaf has no .grad to accumulate into
try:
    h.register_post_accumulate_grad_hook(after)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: post accumulate grad hooks cannot be registered on...
