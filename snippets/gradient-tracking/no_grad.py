import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)

with torch.no_grad():
    y = w * 2  # computed, but not recorded
    print(torch.is_grad_enabled())  # False -> inside the block: off
print(y.requires_grad, y.grad_fn)  # False None -> y is outside any graph
print(torch.is_grad_enabled())  # True -> the previous mode comes back on exit


@torch.no_grad()  # the same, as a decorator
def predict(t):
    return t * 2


print(predict(w).requires_grad)  # False

with torch.no_grad():
    # A factory call that asks for grad explicitly ...
    fresh = torch.zeros(2, requires_grad=True)
# ... gets it: the documented exception, which no_grad does not override.
print(fresh.requires_grad)  # True
