import torch

w = torch.tensor(2.0, requires_grad=True)

with torch.no_grad():
    untracked = w * 2
    with torch.enable_grad():  # turn recording back on, for this block only
        tracked = w * 3
print(untracked.requires_grad, tracked.requires_grad)  # False True


def forward(is_train):
    with torch.set_grad_enabled(is_train):  # the mode chosen by a flag
        return w * 4


print(forward(True).requires_grad, forward(False).requires_grad)  # True False

# Called as a function, it switches the mode until switched back.
torch.set_grad_enabled(False)
print((w * 5).requires_grad)  # False
torch.set_grad_enabled(True)
print((w * 5).requires_grad)  # True
