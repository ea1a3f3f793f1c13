# docexec: figure=none
import torch

z = torch.tensor(1.0 + 2.0j, requires_grad=True)
loss = z.abs() ** 2  # |z|^2 = a^2 + b^2 for z = a + bi: a real loss
loss.backward()
print(z.grad)  # tensor(2.+4.j)

# the same loss on the real pair (a, b)
ab = torch.tensor([1.0, 2.0], requires_grad=True)
(ab**2).sum().backward()
print(ab.grad)  # tensor([2., 4.]) -> dL/da + i dL/db is z.grad

# gradient descent on z moves it the same way as on (a, b)
with torch.no_grad():
    print(z - 0.1 * z.grad, ab - 0.1 * ab.grad)
    #> tensor(0.8000+1.6000j) tensor([0.8000, 1.6000])
