"""What a box of a figure is, in a sentence: the tooltip (an SVG ``<title>``) of every Node and
tensor the site's figures draw (``docexec.graphs.teach`` adds them to the drawing)."""

from __future__ import annotations

import re

#: Node classes the pages meet, in words: what the Node's backward computes, or what it is.
_NODES = {
    "AccumulateGrad": "the Node of a leaf that requires grad: it adds the gradient that reaches it into the "
                      "leaf's .grad",
    "CopySlices": "records an in-place change through a view (t[0] = ..., a slice changed in place): the "
                  "base's gradient goes through the view's backward for the changed part",
    "AsStridedBackward0": "the backward of a view PyTorch describes by size, stride and offset (as_strided), "
                          "often what an in-place change of a view leaves",
    "ToCopyBackward0": "the backward of a copy to another dtype or device (.to, .double(), .float())",
    "CloneBackward0": "the backward of clone(): passes the gradient through unchanged",
    "ExpandBackward0": "the backward of expand (and of broadcasting): sums the gradient over the "
                       "expanded dimensions",
    "SumBackward0": "the backward of sum(): gives every element of the input the incoming gradient",
    "MeanBackward0": "the backward of mean(): gives every element the incoming gradient divided by the count",
    "MulBackward0": "the backward of a multiplication (*): each factor gets the gradient times the other",
    "MulBackward1": "the backward of a multiplication by a number: the gradient times that number",
    "AddBackward0": "the backward of an addition (+): passes the gradient to both terms",
    "AddBackward1": "the backward of adding a number: passes the gradient through",
    "SubBackward0": "the backward of a subtraction (-): the gradient, and its negative",
    "DivBackward0": "the backward of a division (/)",
    "PowBackward0": "the backward of a power (** n): n * x ** (n - 1) times the gradient",
    "ExpBackward0": "the backward of exp(): the saved result times the gradient",
    "LogBackward0": "the backward of log(): the gradient divided by the saved input",
    "ReluBackward0": "the backward of relu(): the gradient where the saved result is positive, else 0",
    "SigmoidBackward0": "the backward of sigmoid(): uses the saved result",
    "TanhBackward0": "the backward of tanh(): uses the saved result",
    "MmBackward0": "the backward of a matrix product (@, mm)",
    "MvBackward0": "the backward of a matrix-vector product (@, mv)",
    "DotBackward0": "the backward of a dot product",
    "AddmmBackward0": "the backward of a linear layer's x @ W.T + b (addmm)",
    "TBackward0": "the backward of a transpose (.T)",
    "ViewBackward0": "the backward of view()/reshape(): reshapes the gradient back",
    "UnsafeViewBackward0": "the backward of a reshape PyTorch made without checks",
    "SelectBackward0": "the backward of indexing one element or row (t[i])",
    "SliceBackward0": "the backward of a slice (t[a:b])",
    "IndexBackward0": "the backward of indexing with a tensor or a list",
    "NegBackward0": "the backward of negation (-t)",
    "SqrtBackward0": "the backward of sqrt()",
    "SinBackward0": "the backward of sin(): cos of the saved input times the gradient",
    "CosBackward0": "the backward of cos()",
    "MaxBackward0": "the backward of max(): the gradient goes to the largest element",
    "CheckpointFunctionBackward": "the Node of a checkpointed block: it runs the block's forward again during "
                                  "backward",
    "BackwardHookFunctionBackward": "a Node a module's full backward hook puts around the module's "
                                    "inputs or outputs",
}


def node_tooltip(node) -> str:
    """What a Node is, in a sentence (for its tooltip)."""
    name = type(node).__name__
    if name in _NODES:
        return f"{name}: {_NODES[name]}."
    if hasattr(type(node), "saved_tensors") and not name.endswith(("Backward0", "Backward1")):
        return f"{name}: the Node of a custom autograd.Function; its backward is the class's backward()."
    operation = re.sub(r"Backward\d*$", "", name)
    if operation != name:
        return f"{name}: the backward of the operation {operation.lower()} (the one that made this Node's output)."
    return f"{name}: a Node of the backward graph."


def tensor_tooltip(name: str, tensor) -> str:
    """What a named tensor is, in a sentence (for its tooltip)."""
    if tensor.grad_fn is not None:
        made = type(tensor.grad_fn).__name__
        return f"{name}: a non-leaf tensor, made by a recorded operation (grad_fn {made}); its .grad stays None " \
               "unless retain_grad() was called."
    if tensor.requires_grad:
        return f"{name}: a leaf tensor that requires grad: backward() adds its gradient into {name}.grad."
    return f"{name}: a tensor that requires no grad: nothing done with it is recorded, and no gradient reaches it."
