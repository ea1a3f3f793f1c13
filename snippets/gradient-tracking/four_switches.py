# docexec: figure=none
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
v = torch.tensor([3.0, 4.0], requires_grad=True)

made = {"w * 2": w * 2}
with torch.no_grad():
    made["w * 2 in no_grad()"] = w * 2
with torch.inference_mode():
    made["w * 2 in inference_mode()"] = w * 2
made["(w * 2).detach()"] = (w * 2).detach()
frozen = torch.tensor([1.0, 2.0], requires_grad=True).requires_grad_(False)
made["frozen * 2"] = frozen * 2


def node_name(y):
    return type(y.grad_fn).__name__ if y.grad_fn else None


def y_times_v(y):
    """Use y where autograd must save it (in a product), then backpropagate."""
    try:
        (y * v).sum().backward()
    except RuntimeError as error:
        return type(error).__name__
    return "runs"


# each y is used here, after its block, with grad mode on again
for made_by, y in made.items():
    print(made_by, y.requires_grad, node_name(y), y.is_inference(),
          y_times_v(y), sep=" | ")
    #> w * 2 | True | MulBackward0 | False | runs
    #> w * 2 in no_grad() | False | None | False | runs
    #> w * 2 in inference_mode() | False | None | True | RuntimeError
    #> (w * 2).detach() | False | None | False | runs
    #> frozen * 2 | False | None | False | runs
