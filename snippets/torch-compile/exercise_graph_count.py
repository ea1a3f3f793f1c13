import torch

compiled = []


def counting(graph_module, example_inputs):  # a backend: counts, runs as is
    compiled.append(len(graph_module.graph.nodes))
    return graph_module.forward


def f(x):
    a = x * 2
    torch._dynamo.graph_break()
    b = a.exp()
    torch._dynamo.graph_break()
    return b.sum()


def chain(tensor):  # the names of the Nodes from tensor back to the leaf
    node, names = tensor.grad_fn, []
    while node is not None:
        names.append(node.name().removeprefix("torch::autograd::"))
        node = node.next_functions[0][0] if node.next_functions else None
    return "\n  ".join(names)


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.compile(f, backend=counting)(x)
print(len(compiled))  # 3
print(chain(y))
#> SumBackward0
#>   ExpBackward0
#>   MulBackward0
#>   AccumulateGrad

z = torch.compile(f, backend="aot_eager")(x)
print(chain(z))
#> CompiledFunctionBackward
#>   CompiledFunctionBackward
#>   CompiledFunctionBackward
#>   AccumulateGrad
