import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    features = w * 2  # say, features computed once for reuse

try:
    loss = (features * w).sum()  # multiplying needs features saved for backward
except RuntimeError as error:
    print(f"RuntimeError: {error}")  # RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.

loss = (features + w).sum()  # addition saves nothing: this one is allowed
loss.backward()
print(w.grad)  # tensor([1., 1.])

w.grad = None
loss = (features.clone() * w).sum()  # a clone made outside inference mode is a normal tensor
loss.backward()
print(w.grad)  # tensor([2., 4.]) -> d loss / dw = features
