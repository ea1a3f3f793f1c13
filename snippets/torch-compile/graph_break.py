import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(title):  # prints the operations of each graph it compiles
    def compiler(graph_module, example_inputs):
        nodes = graph_module.graph.nodes
        ops = [n.name for n in nodes if n.op == "call_function"]
        print(f"{title} graph:", ", ".join(ops))
        #> forward graph: sin
        #> forward graph: cos
        #> backward graph: sin, neg, mul
        #> backward graph: cos, mul
        return make_boxed_func(graph_module.forward)

    return compiler


printing = aot_autograd(fw_compiler=show("forward"),
                        bw_compiler=show("backward"))


def f(x):
    h = x.sin()
    torch._dynamo.graph_break()  # as print or .item() would do
    return h.cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.compile(f, backend=printing)(x)
second = y.grad_fn
first = second.next_functions[0][0]
print(second.name(), "->", first.name())
#> CompiledFunctionBackward -> CompiledFunctionBackward

y.sum().backward()
print(x.grad)  # tensor([-0.4048, -0.4029])
