import textwrap

import torch

seen = []


def f(x):
    h = x.sin()
    seen.append(h.tolist())  # keep the values, as Python floats
    return h.cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
explanation = torch._dynamo.explain(f)(x)
print(explanation.graph_count, explanation.graph_break_count)  # 2 1
reason = explanation.break_reasons[0]
for line in reason.reason.splitlines()[:2]:
    print(textwrap.fill(line.strip(), 76, break_on_hyphens=False))
    #> Tensor.tolist() with non-integer tensor
    #> Explanation: Dynamo currently does not support tracing `tolist()` on
    #> non-integer tensors.
frame = reason.user_stack[-1]  # where in your code the graph broke
print(f"in {frame.name}, line {frame.lineno}")  # in f, line 10
