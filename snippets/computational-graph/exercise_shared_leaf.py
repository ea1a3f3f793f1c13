import torch

x = torch.tensor(2.0, requires_grad=True)
w = torch.tensor(3.0, requires_grad=True)
z = x * w + x

print(z)  # tensor(8., grad_fn=<AddBackward0>)
# The Nodes one step behind z's grad_fn:
print([type(node).__name__ for node, _ in z.grad_fn.next_functions])
#> ['MulBackward0', 'AccumulateGrad']
mul_node = z.grad_fn.next_functions[0][0]
print([type(node).__name__ for node, _ in mul_node.next_functions])
#> ['AccumulateGrad', 'AccumulateGrad']
