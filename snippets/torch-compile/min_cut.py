import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._functorch.partitioners import min_cut_rematerialization_partition


def show(title):  # the printing compiler of the first example
    def compiler(graph_module, example_inputs):
        nodes = list(graph_module.graph.nodes)
        inputs = ", ".join(n.name for n in nodes if n.op == "placeholder")
        print(f"{title} graph, inputs: {inputs}")
        for node in nodes:
            if node.op == "call_function":
                args = ", ".join(map(str, node.args))
                print(f"    {node.name} = {node.target}({args})")
            elif node.op == "output":
                print(f"    return {', '.join(map(str, node.args[0]))}")
        return make_boxed_func(graph_module.forward)

    return compiler


recomputing = aot_autograd(
    fw_compiler=show("forward"),
    bw_compiler=show("backward"),
    partition_fn=min_cut_rematerialization_partition,  # what inductor uses
)


def f(x):
    return x.sin().cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.compile(f, backend=recomputing)(x)
y.sum().backward()
print(x.grad)

# the built-in backends: which partitioner each one uses
for backend in ["aot_eager", "aot_eager_default_partitioner"]:
    y = torch.compile(f, backend=backend)(x)
    print(backend, "saves", len(y.grad_fn.saved_tensors))
