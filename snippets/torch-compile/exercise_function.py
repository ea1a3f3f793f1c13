import torch


class StraightThroughClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(0.0, 1.0)

    @staticmethod
    def backward(ctx, grad):
        return grad


def custom(x):
    return StraightThroughClamp.apply(x) * 2


def builtin(x):
    return x.clamp(0.0, 1.0) * 2


x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
for f in [custom, builtin]:
    x.grad = None
    y = torch.compile(f, backend="aot_eager", fullgraph=True)(x)
    y.sum().backward()
    print(f.__name__, y.grad_fn.name(), x.grad)
    #> custom CompiledFunctionBackward tensor([2., 2., 2.])
    #> builtin CompiledFunctionBackward tensor([0., 2., 0.])
