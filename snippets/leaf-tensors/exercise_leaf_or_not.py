import torch

w = torch.zeros(2, requires_grad=True)
a = torch.zeros(2)
b = a * 2
c = w * 2
d = c.detach()
e = w.long()
f = torch.nn.Parameter(torch.zeros(2))

for name, tensor in (("b", b), ("c", c), ("d", d), ("e", e), ("f", f)):
    print(name, tensor.requires_grad, tensor.is_leaf)
    #> b False True
    #> c True False
    #> d False True
    #> e False True
    #> f True True
