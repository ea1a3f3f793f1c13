import torch

w = torch.tensor(1.0, requires_grad=True)
for step in range(3):
    loss = (3 * w) ** 2 / 2  # d loss / dw = 9 * w on every step
    loss.backward()
    print(step, w.grad)  # -> never reset: each step adds it again
    #> 0 tensor(9.)
    #> 1 tensor(18.)
    #> 2 tensor(27.)

for step in range(3):
    w.grad = None  # reset before every backward pass (or optimizer.zero_grad())
    loss = (3 * w) ** 2 / 2
    loss.backward()
    print(step, w.grad)  # -> the true gradient every time
    #> 0 tensor(9.)
    #> 1 tensor(9.)
    #> 2 tensor(9.)
