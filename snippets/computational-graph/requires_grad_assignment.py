import torch

t = torch.zeros(3)
t.requires_grad = True  # allowed: t is a leaf, so the flag can be assigned
print(t.requires_grad, t.is_leaf)  # True True

y = t * 2  # a non-leaf: its flag follows from its inputs
for value in (False, True):
    try:
        y.requires_grad = value
    except RuntimeError as error:
        print(f"{value}: {error}")  # -> assigning either value raises
        #> False: you can only change requires_grad flags of ... var.detach().
        #> True: you can only change requires_grad flags of leaf variables.

try:
    y.requires_grad_(False)  # the method refuses too, to switch tracking off
except RuntimeError as error:
    print(f"requires_grad_(False): {error}")
    #> requires_grad_(False): you can only change ... var.detach().
# Asking for what y already has is accepted, and changes nothing.
print(y.requires_grad_(True) is y, y.is_leaf)  # True False

print(y.detach().requires_grad)  # False -> what the first message suggests
