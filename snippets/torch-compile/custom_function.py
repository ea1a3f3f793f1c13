import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


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
        #>     mul = aten.mul.Tensor(primals_1, 3)
        #>     clamp = aten.clamp.default(mul, -1.0, 1.0)
        #>     sin = aten.sin.default(clamp)
        #>     return sin, clamp
        #> backward graph, inputs: clamp, tangents_1
        #>     cos = aten.cos.default(clamp)
        #>     mul_1 = aten.mul.Tensor(tangents_1, cos)
        #>     mul_2 = aten.mul.Tensor(mul_1, 3)
        #>     return mul_2
        return make_boxed_func(graph_module.forward)

    return compiler


printing = aot_autograd(fw_compiler=show("forward"),
                        bw_compiler=show("backward"))


class StraightThroughClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad):
        return grad  # passes the gradient on, clamped or not


def f(x):
    return StraightThroughClamp.apply(x * 3).sin()


x = torch.tensor([0.1, 0.5], requires_grad=True)
y = torch.compile(f, backend=printing, fullgraph=True)(x)
y.sum().backward()
print(x.grad)  # tensor([2.8660, 1.6209])

eager_x = x.detach().requires_grad_()
eager = StraightThroughClamp.apply(eager_x * 3)
print(eager.grad_fn.name())  # StraightThroughClampBackward
eager.sin().sum().backward()
print(eager_x.grad)  # tensor([2.8660, 1.6209])
