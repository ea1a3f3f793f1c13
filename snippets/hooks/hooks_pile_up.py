import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)

for step in range(3):
    # meant as "halve this step's gradient"
    w.register_hook(lambda grad: grad * 0.5)
    w.grad = None
    (w * 4).sum().backward()  # d/dw = 4
    print(step, w.grad)  # -> each iteration adds one more hook on the same leaf
    #> 0 tensor([2., 2.])
    #> 1 tensor([1., 1.])
    #> 2 tensor([0.5000, 0.5000])
