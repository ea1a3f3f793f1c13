import torch

t = torch.zeros(3)
print(t._version)  # 0 -> a fresh tensor starts at version 0

t.add_(1)  # trailing underscore: an in-place method
print(t._version)  # 1
t[0] = 5.0  # indexed assignment writes in place too
print(t._version)  # 2
t += 1  # and so does an augmented assignment on a tensor
print(t._version)  # 3

u = t + 1  # out-of-place: a new tensor, t is untouched
print(t._version, u._version)  # 3 0 -> reading t does not count as a change

t.requires_grad_()  # a trailing underscore too, but it only switches a flag
print(t._version)  # 3 -> not counted: the values did not change

# One statement can count twice: an augmented assignment to an element.
s = torch.zeros(3)
s[0] += 1
print(s._version)  # 2
# Python runs it as three steps: read a view, add in place, write back.
s = torch.zeros(3)
element = s[0]  # a view: no change yet
element += 1  # in place, through the view: counted once
print(s._version)  # 1
s[0] = element  # the write-back: counted again
print(s._version)  # 2
