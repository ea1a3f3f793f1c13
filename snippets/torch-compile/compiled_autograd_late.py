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
        #> fw_compiler: sin, cos, sum_1
        #> bw_compiler: expand, sin_1, neg, mul, cos_1, mul_1
        #> fw_compiler: expand, sin, neg, mul, cos, mul_1,
        #>     new_empty_strided, copy
        return make_boxed_func(graph_module.forward)

    return compiler


printing = aot_autograd(fw_compiler=show("fw_compiler"),
                        bw_compiler=show("bw_compiler"))


def step(x):
    x.sin().cos().sum().backward()


compiled_step = torch.compile(step, backend=printing)
torch._dynamo.config.compiled_autograd = True  # too late for compiled_step
x = torch.tensor([0.5, 1.0], requires_grad=True)
compiled_step(x)
print(x.grad)  # tensor([-0.4048, -0.4029])

compiled_again = torch.compile(step, backend=printing)  # reads the flag now
x = torch.tensor([0.5, 1.0], requires_grad=True)
compiled_again(x)
print(x.grad)  # tensor([-0.4048, -0.4029])

torch._dynamo.config.compiled_autograd = False  # back to the default
