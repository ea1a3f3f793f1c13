# docexec: figure=saved
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
shifted = (x + 1).sum()
grown = x.exp().sum()

for loss in (shifted, grown):
    loss.backward()
    try:
        loss.backward()  # a second time, without retain_graph=True
        print("second pass ran")
        #> second pass ran
    except RuntimeError as error:
        print(f"RuntimeError: {error}")
        #> RuntimeError: Trying to backward through the graph a second time...
