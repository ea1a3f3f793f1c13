import torch
from torch.autograd.functional import jacobian

calls = {"tall": 0, "backward": 0}


def count_backward(grad):  # a tensor hook runs once per backward pass
    calls["backward"] += 1


def tall(x):  # R^2 -> R^6
    calls["tall"] += 1
    h = x.sin()
    if h.requires_grad:
        h.register_hook(count_backward)
    return torch.cat([h, 2 * h, 3 * h])


x = torch.tensor([0.5, 1.0])
options = {
    "reverse, row by row": dict(),
    "reverse, vectorized": dict(vectorize=True),
    "forward, vectorized": dict(vectorize=True, strategy="forward-mode"),
}
results = []
for name, kwargs in options.items():
    calls.update(tall=0, backward=0)
    results.append(jacobian(tall, x, **kwargs))
    print(f"{name}: {calls}")
    #> reverse, row by row: {'tall': 1, 'backward': 6}
    #> reverse, vectorized: {'tall': 1, 'backward': 1}
    #> forward, vectorized: {'tall': 1, 'backward': 0}
print(all(torch.allclose(results[0], J) for J in results))  # True

try:
    jacobian(tall, x, strategy="forward-mode")  # without vectorize=True
except NotImplementedError as e:
    print(f"NotImplementedError: {e}")
    #> NotImplementedError: ...forward-AD ...implemented for `vectorize=True`.
