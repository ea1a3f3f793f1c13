import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def show(title):  # prints the operations of each graph it compiles
    def compiler(graph_module, example_inputs):
        nodes = graph_module.graph.nodes
        ops = [n.name for n in nodes if n.op == "call_function"]
        print(f"{title}:", ", ".join(ops))
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
print(x.grad)

compiled_again = torch.compile(step, backend=printing)  # reads the flag now
x = torch.tensor([0.5, 1.0], requires_grad=True)
compiled_again(x)
print(x.grad)
