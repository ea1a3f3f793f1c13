import numpy as np
import torch
from torch._dynamo.backends.common import aot_autograd
from torch._functorch.aot_autograd import make_boxed_func


@torch.library.custom_op("course::cube", mutates_args=())
def cube(x: torch.Tensor) -> torch.Tensor:
    # NumPy: outside PyTorch, where autograd cannot follow
    return torch.from_numpy(np.power(x.numpy(), 3))


@cube.register_fake
def _(x):  # shape, dtype and device of the result, without computing it
    return torch.empty_like(x)


def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)


def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * 3 * x**2


cube.register_autograd(backward, setup_context=setup_context)

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = cube(x)
print(y.grad_fn.name())  # GeneratedBackwardFor_course_cube_defaultBackward
y.sum().backward()
print(x.grad)  # tensor([ 3., 12.])

checks = torch.library.opcheck(cube, (torch.randn(3, requires_grad=True),))
for test, result in checks.items():
    print(test, result)
    #> test_schema SUCCESS
    #> test_autograd_registration SUCCESS
    #> test_faketensor SUCCESS
    #> test_aot_dispatch_dynamic SUCCESS
# opcheck does not check that backward is right; gradcheck compares it with
# finite differences (in double precision)
inputs = (torch.randn(3, dtype=torch.double, requires_grad=True),)
print(torch.autograd.gradcheck(cube, inputs))  # True



def show(title):  # prints the operations of each graph it compiles
    def compiler(graph_module, example_inputs):
        nodes = graph_module.graph.nodes
        ops = [str(n.target) for n in nodes if n.op == "call_function"]
        print(f"{title} graph:", *ops, sep="\n    ")
        #> forward graph:
        #>     course.cube.default
        #>     aten.sin.default
        #> backward graph:
        #>     aten.cos.default
        #>     aten.mul.Tensor
        #>     aten.mul.Tensor
        #>     aten.pow.Tensor_Scalar
        #>     aten.mul.Tensor
        return make_boxed_func(graph_module.forward)

    return compiler


printing = aot_autograd(fw_compiler=show("forward"),
                        bw_compiler=show("backward"))


def f(t):
    return cube(t).sin()


x.grad = None
z = torch.compile(f, backend=printing, fullgraph=True)(x)
z.sum().backward()
print(x.grad)  # tensor([ 1.6209, -1.7460])
