import torch

w = torch.tensor([0.0, 0.0], requires_grad=True)
data = torch.tensor([1.0, 2.0])
target = torch.tensor(10.0)
lr = 0.05

for step in range(3):
    loss = ((w * data).sum() - target) ** 2
    loss.backward()
    with torch.no_grad():  # the update itself is not part of the model
        w -= lr * w.grad  # in place: w stays the same leaf tensor
    w.grad.zero_()  # gradients add up across backward() calls, so reset them
    print(step, round(loss.item(), 4), w.is_leaf, w._version)
    #> 0 100.0 True 1
    #> 1 25.0 True 2
    #> 2 6.25 True 3
