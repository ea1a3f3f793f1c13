# docexec: figure=hooks+gradients
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
h = w * 3  # a non-leaf: backward does not store its gradient in h.grad
loss = (h**2).sum()


def show(grad):
    print("gradient reaching h:", grad)  # -> d(loss)/dh = 2h, on its way to w
    #> gradient reaching h: tensor([  6., -12.])
    # returning None leaves the gradient unchanged


h.register_hook(show)
loss.backward()  # the hook runs when the gradient for h has been computed
print(w.grad)  # tensor([ 18., -36.]) -> d(loss)/dw = 3 * d(loss)/dh
