import torch

# The function shown above: in your own file, paste it here instead.
from docexec.graphs.graph import to_dot

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([0.5, -1.0], requires_grad=True)
loss = (x * w).sum()

text = to_dot({"x": x, "w": w, "loss": loss})
# DOT text: save it as graph.dot, then run: dot -Tsvg graph.dot -o graph.svg
# (the node lines are cut short here with "...")
print(text, end="")
#> digraph autograd {
#>   rankdir=TB bgcolor="transparent" nodesep=0.25 ranksep=0.35
#>   node [fontname="Helvetica,Arial,sans-serif" fontsize=11 ...]
#>   edge [color="#475569"]
#>   t0 [label="x\nshape (2,)\nleaf\nrequires grad" class="tensor-leaf" ...]
#>   t1 [label="w\nshape (2,)\nleaf\nrequires grad" class="tensor-leaf" ...]
#>   t2 [label="loss\nscalar\nnon-leaf\nrequires grad" ...]
#>   n0 [label="SumBackward0" class="backward" shape=box ...]
#>   n1 [label="MulBackward0" class="backward" shape=box ...]
#>   n2 [label="AccumulateGrad" class="accumulate" shape=box ...]
#>   n3 [label="AccumulateGrad" class="accumulate" shape=box ...]
#>   n0 -> t2 [class="join" style=dashed arrowhead=none]
#>   n1 -> n0 [class="flow"]
#>   n2 -> n1 [class="flow"]
#>   n3 -> n1 [class="flow"]
#>   t0 -> n2 [class="join" style=dashed arrowhead=none]
#>   t1 -> n3 [class="join" style=dashed arrowhead=none]
#> }
