import torch


def make_weight(n, dtype):
    return torch.ones(n, requires_grad=True).to(dtype)


for dtype in (torch.float32, torch.float64):
    w = make_weight(3, dtype)
    try:
        torch.optim.SGD([w], lr=0.1)
        print(dtype, "accepted")
        #> torch.float32 accepted
    except ValueError as error:
        print(dtype, f"ValueError: {error}")
        #> torch.float64 ValueError: can't optimize a non-leaf Tensor
