import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)

with torch.inference_mode():
    y = w * 2
    print(torch.is_inference_mode_enabled())  # True
print(y.requires_grad, y.grad_fn)  # False None -> untracked, as under no_grad
print(y.is_inference())  # True -> but y is an inference tensor

with torch.no_grad():
    z = w * 2
print(z.is_inference())  # False -> no_grad makes ordinary tensors

try:
    y._version
except RuntimeError as error:
    print(f"RuntimeError: {error}")  # RuntimeError: Inference tensors do not track version counter. -> part of what makes inference mode cheaper
