import torch


def make_weight(n, dtype):
    return torch.ones(n, dtype=dtype, requires_grad=True)  # made as a leaf


for dtype in (torch.float32, torch.float64):
    w = make_weight(3, dtype)
    torch.optim.SGD([w], lr=0.1)  # no error for either dtype
    print(dtype, w.is_leaf)
    #> torch.float32 True
    #> torch.float64 True
