import torch

a = torch.ones(2)
early = a * 2  # computed before a asks for tracking
a.requires_grad_()
late = a * 2  # computed after
print(early.requires_grad, late.requires_grad)  # False True

for name, tensor in (("early", early), ("late", late)):
    try:
        tensor.requires_grad = True
        print(name, "accepted:", tensor.requires_grad, tensor.is_leaf)
        #> early accepted: True True
    except RuntimeError as error:
        print(name, f"RuntimeError: {error}")
        #> late RuntimeError: you can only change requires_grad flags of leaf...
