# docexec: figure=saved
import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


def forward_compiler(graph_module, example_inputs):
    nodes = graph_module.graph.nodes
    (outputs,) = [n.args[0] for n in nodes if n.op == "output"]
    # f has one output; whatever the graph returns after it is kept for backward
    print("compiled forward saves:", [node.name for node in outputs[1:]])
    #> compiled forward saves: ['primals_1', 'sin']
    return make_boxed_func(graph_module.forward)


def backward_compiler(graph_module, example_inputs):
    return make_boxed_func(graph_module.forward)


saving = aot_autograd(fw_compiler=forward_compiler,
                      bw_compiler=backward_compiler)


def f(x):
    return x.sin().cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
compiled = torch.compile(f, backend=saving)(x)
print(compiled.grad_fn.name())  # CompiledFunctionBackward -> one Node for all
# the same two tensors, as the compiled Node holds them
print(*compiled.grad_fn.saved_tensors, sep="\n")
#> tensor([0.5000, 1.0000], requires_grad=True)
#> tensor([0.4794, 0.8415])

eager = f(x)
cos_node = eager.grad_fn
sin_node = cos_node.next_functions[0][0]
print(cos_node.name(), torch.equal(cos_node._saved_self, x.sin()))
#> CosBackward0 True
print(sin_node.name(), sin_node._saved_self is x)  # SinBackward0 True
