import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


class LoudClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, grad):
        print("backward of LoudClamp")  # backward of LoudClamp
        return grad


def f(x):
    return LoudClamp.apply(x * 3).sin()


x = torch.tensor([0.1, 0.5], requires_grad=True)
try:
    torch.compile(f, backend="aot_eager", fullgraph=True)(x)
except torch._dynamo.exc.Unsupported as error:
    print(type(error).__name__)  # Unsupported
    print(str(error).splitlines()[1].strip())
    #> Higher Order Operator: autograd.Function

def show(graph_module, example_inputs):  # the operations of each graph
    nodes = graph_module.graph.nodes
    print("graph:", *[n.name for n in nodes if n.op == "call_function"])
    #> graph: mul
    #> graph: clamp
    #> graph: sin
    #> graph: cos mul
    #> graph: mul_1
    return make_boxed_func(graph_module.forward)


y = torch.compile(f, backend=aot_autograd(fw_compiler=show))(x)
node = y.grad_fn
while node is not None:
    print(node.name())
    #> CompiledFunctionBackward
    #> LoudClampBackward
    #> CompiledFunctionBackward
    #> torch::autograd::AccumulateGrad
    node = node.next_functions[0][0] if node.next_functions else None
y.sum().backward()
print(x.grad)  # tensor([2.8660, 1.6209])
