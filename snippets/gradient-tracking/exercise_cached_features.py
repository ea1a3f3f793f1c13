import torch

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 3)  # a frozen encoder ...
head = torch.nn.Linear(3, 1)  # ... and the head that is trained on its output
data = torch.ones(2, 3)

with torch.inference_mode():  # compute the features once, to reuse them
    features = encoder(data)

try:
    loss = head(features).sum()
    loss.backward()
except RuntimeError as error:
    print(f"RuntimeError: {error}")
    #> RuntimeError: Inference tensors cannot be saved for backward. ...
print(head.weight.grad, head.bias.grad)  # None None
