import torch

t = torch.zeros(3)
t.requires_grad = True  # allowed: t is a leaf, so the flag can be set by assignment
print(t.requires_grad, t.is_leaf)  # True True

y = t * 2  # a non-leaf: its flag follows from its inputs
for value in (False, True):
    try:
        y.requires_grad = value
    except RuntimeError as error:
        print(f"requires_grad = {value}: {error}")
        #> requires_grad = False: you can only change requires_grad flags of leaf variables. If you want to use a computed variable ... use var_no_grad = var.detach().
        #> requires_grad = True: you can only change requires_grad flags of leaf variables.

try:
    y.requires_grad_(False)  # the method refuses too, when asked to switch tracking off
except RuntimeError as error:
    print(f"requires_grad_(False): {error}")  # requires_grad_(False): you can only change requires_grad flags of leaf variables. If you want to use a computed variable ... use var_no_grad = var.detach().
print(y.requires_grad_(True) is y, y.is_leaf)  # True False -> asking for what y already has is accepted, and changes nothing

print(y.detach().requires_grad)  # False -> what the first message suggests instead
