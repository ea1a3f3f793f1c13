import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func
from torch._functorch.partitioners import min_cut_rematerialization_partition


def show(title):  # the printing compiler of the first example
    def compiler(graph_module, example_inputs):
        nodes = list(graph_module.graph.nodes)
        inputs = ", ".join(n.name for n in nodes if n.op == "placeholder")
        lines = [f"{title} graph, inputs: {inputs}"]
        for node in nodes:
            if node.op == "call_function":
                args = ", ".join(map(str, node.args))
                lines.append(f"    {node.name} = {node.target}({args})")
            elif node.op == "output":
                lines.append(f"    return {', '.join(map(str, node.args[0]))}")
        print("\n".join(lines))
        #> forward graph, inputs: primals_1
        #>     sin = aten.sin.default(primals_1)
        #>     cos = aten.cos.default(sin)
        #>     return cos, primals_1
        #> backward graph, inputs: primals_1, tangents_1
        #>     sin = aten.sin.default(primals_1)
        #>     sin_1 = aten.sin.default(sin)
        #>     neg = aten.neg.default(sin_1)
        #>     mul = aten.mul.Tensor(tangents_1, neg)
        #>     cos_1 = aten.cos.default(primals_1)
        #>     mul_1 = aten.mul.Tensor(mul, cos_1)
        #>     return mul_1
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
print(x.grad)  # tensor([-0.4048, -0.4029])

def norm(x):
    return torch.nn.functional.layer_norm(x, (2,)).relu()


def saves(fn, backend):  # how many tensors CompiledFunctionBackward holds
    return len(torch.compile(fn, backend=backend)(x).grad_fn.saved_tensors)


# the built-in backends: which partitioner each uses, and on what graph
for backend in ["aot_eager", "aot_eager_default_partitioner",
                "aot_eager_decomp_partition"]:
    print(backend, "saves", saves(f, backend), "and", saves(norm, backend))
    #> aot_eager saves 1 and 4
    #> aot_eager_default_partitioner saves 2 and 4
    #> aot_eager_decomp_partition saves 1 and 2
