import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
data = torch.tensor([3.0, 4.0, 5.0])

with torch.inference_mode():
    y = w * 2
    head = data[:2]  # a view of a tensor made outside inference mode
    print(torch.is_inference_mode_enabled())  # True
print(y.requires_grad, y.grad_fn)  # False None -> untracked, as under no_grad
print(y.is_inference())  # True -> but y is an inference tensor
# A view is an inference tensor only if its base is one:
print(torch.is_inference(head), head._base is data)  # False True

with torch.no_grad():
    z = w * 2
print(z.is_inference())  # False -> no_grad makes ordinary tensors

try:
    y._version
except RuntimeError as error:
    # Part of what makes inference mode cheaper:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Inference tensors do not track version counter.
