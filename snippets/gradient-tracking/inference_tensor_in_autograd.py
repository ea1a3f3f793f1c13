import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.inference_mode():
    features = w * 2  # say, features computed once for reuse

try:
    loss = (features * w).sum()  # multiplying needs features saved for backward
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Inference tensors cannot be saved ... make a clone ...

loss = (features + w).sum()  # addition saves nothing: this one is allowed
loss.backward()
print(w.grad)  # tensor([1., 1.])

w.grad = None
# A clone made outside inference mode is a normal tensor.
loss = (features.clone() * w).sum()
loss.backward()
print(w.grad)  # tensor([2., 4.]) -> d loss / dw = features
