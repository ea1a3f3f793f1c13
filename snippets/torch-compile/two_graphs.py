import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(title):  # a compiler that prints the graph it is given
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
        #>     return cos, primals_1, sin
        #> backward graph, inputs: primals_1, sin, tangents_1
        #>     sin_1 = aten.sin.default(sin)
        #>     neg = aten.neg.default(sin_1)
        #>     mul = aten.mul.Tensor(tangents_1, neg)
        #>     cos_1 = aten.cos.default(primals_1)
        #>     mul_1 = aten.mul.Tensor(mul, cos_1)
        #>     return mul_1
        #> forward graph, inputs: primals_1, primals_2, primals_3
        #>     add = aten.add.Tensor(primals_1, 1)
        #>     sin = aten.sin.default(primals_3)
        #>     cos = aten.cos.default(sin)
        #>     return add, cos, primals_3, sin, primals_2
        #> backward graph, inputs: primals_2, primals_3, sin, tangents_1
        #>     sin_1 = aten.sin.default(sin)
        #>     neg = aten.neg.default(sin_1)
        #>     mul_2 = aten.mul.Tensor(tangents_1, neg)
        #>     cos_1 = aten.cos.default(primals_3)
        #>     mul_3 = aten.mul.Tensor(mul_2, cos_1)
        #>     return None, None, mul_3
        return make_boxed_func(graph_module.forward)  # run it as it is

    return compiler


printing = aot_autograd(fw_compiler=show("forward"),
                        bw_compiler=show("backward"))


def f(x):
    return x.sin().cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
y = torch.compile(f, backend=printing)(x)
print(y)  # tensor([0.8873, 0.6664], grad_fn=<CompiledFunctionBackward>)
y.sum().backward()
print(x.grad)  # tensor([-0.4048, -0.4029])


def g(x, calls):  # mutates calls; compiled for any size of x
    calls.add_(1)
    return x.sin().cos()


_z = torch.compile(g, backend=printing, dynamic=True)(x, torch.zeros(1))
print("backward() not called yet")  # backward() not called yet
