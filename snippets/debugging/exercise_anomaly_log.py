import warnings

import torch

x = torch.tensor([0.0, 1.0], requires_grad=True)

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # anomaly mode's traceback warnings
    with torch.autograd.detect_anomaly():
        x.log().sum().backward()
    print(x.grad)  # tensor([inf, 1.])

    x.grad = None
    with torch.autograd.detect_anomaly():
        try:
            (x.log() * 0).sum().backward()
        except RuntimeError as error:
            print("RuntimeError:", error)
            #> RuntimeError: Function 'LogBackward0' returned nan values...
    print(x.grad)  # None
