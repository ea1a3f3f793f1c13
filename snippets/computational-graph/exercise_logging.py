# docexec: figure=none
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
history = []
for scale in (1.0, 2.0, 3.0):
    loss = (scale * w).pow(2).sum()
    try:
        history.append(loss.numpy())  # keep the value for a plot
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
        #> RuntimeError: Can't call numpy() on Tensor that requires grad. ...
        #> RuntimeError: Can't call numpy() on Tensor that requires grad. ...
        #> RuntimeError: Can't call numpy() on Tensor that requires grad. ...
print(history)  # []
