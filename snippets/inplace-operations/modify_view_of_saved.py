import torch

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = torch.exp(x)  # exp's backward reuses its own output: d(exp(x))/dx = exp(x)
head = y[:2]  # a view of part of y, say to post-process it
head.zero_()  # the change goes through the view ...
print(head._version, y._version)  # 1 1 -> ... but the counter is shared with y

try:
    y.sum().backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: ... output 0 of Exp, is at version 1; expected ...
