# docexec: figure=none
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
node = y.grad_fn  # MulBackward0: computes the gradient for x from that for y
acc = node.next_functions[0][0]  # x's AccumulateGrad Node
print(type(acc).__name__)  # AccumulateGrad

log = []
# registered in reverse order on purpose: the order they run in is fixed
x.register_post_accumulate_grad_hook(lambda p: log.append("x post-accumulate"))
acc.register_hook(lambda gi, go: log.append("AccumulateGrad hook"))
acc.register_prehook(lambda go: log.append("AccumulateGrad prehook"))
x.register_hook(lambda g: log.append("x tensor hook"))
node.register_hook(lambda gi, go: log.append("MulBackward0 hook"))
node.register_prehook(lambda go: log.append("MulBackward0 prehook"))
y.register_hook(lambda g: log.append("y tensor hook"))

y.sum().backward()
for step, name in enumerate(log, 1):
    print(step, name)
    #> 1 y tensor hook
    #> 2 MulBackward0 prehook
    #> 3 MulBackward0 hook
    #> 4 x tensor hook
    #> 5 AccumulateGrad prehook
    #> 6 x post-accumulate
    #> 7 AccumulateGrad hook
