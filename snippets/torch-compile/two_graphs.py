import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(title):  # a compiler that prints the graph it is given
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
        return make_boxed_func(graph_module.forward)  # run it as it is

    return compiler


printing = aot_autograd(fw_compiler=show("forward"), bw_compiler=show("backward"))


def f(x):
    return x.sin().cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.compile(f, backend=printing)(x)
print(y)
y.sum().backward()
print(x.grad)
