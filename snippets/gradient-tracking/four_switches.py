# docexec: figure=none
import torch

v = torch.tensor([3.0, 4.0], requires_grad=True)


def leaf():
    return torch.tensor([1.0, 2.0], requires_grad=True)


made = {}  # each row: a fresh leaf w, and y made from it with one switch
w = leaf()
made["w * 2"] = (w, w * 2)
w = leaf()
with torch.no_grad():
    made["w * 2 in no_grad()"] = (w, w * 2)
w = leaf()
with torch.inference_mode():
    made["w * 2 in inference_mode()"] = (w, w * 2)
w = leaf()
made["(w * 2).detach()"] = (w, (w * 2).detach())
w = leaf().requires_grad_(False)
made["w * 2, w frozen"] = (w, w * 2)


def node_name(y):
    return type(y.grad_fn).__name__ if y.grad_fn else None


refused = []


def y_times_v(y):
    """y * v (autograd must save y for it), then backward()."""
    try:
        product = y * v
    except RuntimeError as error:
        refused.append(str(error).split(". ")[0])
        return "y * v raises"
    product.sum().backward()
    return "runs"


# each y is used here, after its block, with grad mode on again
for made_by, (w, y) in made.items():
    print(made_by, y.requires_grad, node_name(y), y.is_inference(),
          y_times_v(y), w.grad, sep=" | ")
    #> w * 2 | True | MulBackward0 | False | runs | tensor([6., 8.])
    #> w * 2 in no_grad() | False | None | False | runs | None
    #> w * 2 in inference_mode() | False | None | True | y * v raises | None
    #> (w * 2).detach() | False | None | False | runs | None
    #> w * 2, w frozen | False | None | False | runs | None
print(refused[0])
#> Inference tensors cannot be saved for backward
