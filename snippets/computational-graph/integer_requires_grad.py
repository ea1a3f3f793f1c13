import torch

# Asking for tracking when an integer tensor is made:
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Only Tensors of floating point and complex dtype can ...

# Asking later, on an existing integer tensor:
counts = torch.tensor([1, 2])
try:
    counts.requires_grad_()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: only Tensors of floating point dtype can require gradients

# Floating point tensors of any width are accepted, and so are complex ones,
# by the method too, though its message above leaves complex out.
for dtype in (torch.float16, torch.float64, torch.complex64):
    print(dtype, torch.zeros(1, dtype=dtype).requires_grad_().requires_grad)
    #> torch.float16 True
    #> torch.float64 True
    #> torch.complex64 True

# The fix: make the tensor floating point from the start.
fixed = torch.tensor([1.0, 2.0], requires_grad=True)
print(fixed.dtype, fixed.requires_grad)  # torch.float32 True
