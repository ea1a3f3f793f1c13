import torch


def f(x):
    return x.sin().sin().sin()


x = torch.tensor([0.5, 1.0], requires_grad=True)

eager = f(x)
node, saved = eager.grad_fn, 0
while hasattr(node, "_saved_self"):  # walk the chain of SinBackward0 Nodes
    saved += 1
    node = node.next_functions[0][0]
print("eager", saved)  # eager 3

for backend in ["aot_eager_default_partitioner", "aot_eager"]:
    y = torch.compile(f, backend=backend)(x)
    print(backend, len(y.grad_fn.saved_tensors))
    #> aot_eager_default_partitioner 3
    #> aot_eager 1
