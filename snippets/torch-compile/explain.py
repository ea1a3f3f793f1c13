import textwrap

import torch


def f(x):
    h = x.sin()
    print("eager Python")  # eager Python -> explain runs f once
    return h.cos()


x = torch.tensor([0.5, 1.0], requires_grad=True)
explanation = torch._dynamo.explain(f)(x)
print(explanation.graph_count, explanation.graph_break_count)  # 2 1
reason = explanation.break_reasons[0]
print(textwrap.fill(reason.reason.splitlines()[1].strip(), 76))
frame = reason.user_stack[-1]  # where in your code the graph broke
print(f"in {frame.name}, line {frame.lineno}")
