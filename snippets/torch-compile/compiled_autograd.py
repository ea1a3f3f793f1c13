import textwrap

import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(title):  # prints the operations of each graph it compiles
    def compiler(graph_module, example_inputs):
        nodes = graph_module.graph.nodes
        ops = [n.name for n in nodes if n.op == "call_function"]
        line = f"{title}: {', '.join(ops)}"
        print(textwrap.fill(line, 64, subsequent_indent="    "))
        #> fw_compiler: sin
        #> fw_compiler: cos, sum_1
        #> bw_compiler: expand, sin, neg, mul
        #> bw_compiler: cos, mul
        #> fw_compiler: mul
        #> fw_compiler: expand, sin, neg, mul, cos, mul_1, mul_2,
        #>     new_empty_strided, copy
        return make_boxed_func(graph_module.forward)

    return compiler


printing = aot_autograd(fw_compiler=show("fw_compiler"),
                        bw_compiler=show("bw_compiler"))


def double(grad):  # a hook on the leaf, outside every compiled function
    return grad * 2


def step(x):
    h = x.sin()
    torch._dynamo.graph_break()
    h.cos().sum().backward()


for flag in [False, True]:
    # read by torch.compile; patch() puts the old value back on leaving
    with torch._dynamo.config.patch(compiled_autograd=flag):
        compiled_step = torch.compile(step, backend=printing)
        print(f"compiled_autograd={flag}")
        #> compiled_autograd=False
        #> compiled_autograd=True
        x = torch.tensor([0.5, 1.0], requires_grad=True)
        x.register_hook(double)
        compiled_step(x)
        print(x.grad)
        #> tensor([-0.8096, -0.8057])
        #> tensor([-0.8096, -0.8057])
