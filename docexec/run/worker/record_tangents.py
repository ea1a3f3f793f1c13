"""Recording forward mode while a snippet runs: each operation that made a dual tensor, in order.

``figure=tangents`` asks for it (``docexec.run.worker.record.Recorder``). A ``TorchFunctionMode``
sees every torch function the snippet calls itself (inside ``__torch_function__`` the mode is off,
so the operations a function runs inside it are not seen again); one whose result carries a tangent
at the current dual level (``torch.autograd.forward_ad``) is noted with its inputs, the value it
computed and the tangent computed with it (``docexec.graphs.teach.TangentStep``). Calls made inside
torch (printing a dual tensor, say) are not the snippet's: a call counts when the first frame
outside torch's thin wrappers that lead to it (``Tensor.__pow__``, ``forward_ad.make_dual``) is
outside torch and docexec.
"""

from __future__ import annotations

import os
import sys

from docexec.graphs import graph
from docexec.graphs.teach import Facts, TangentStep, brief

#: The most operations one figure notes: a loop of thousands would draw nothing a reader can follow.
MOST_STEPS = 40

#: Files of torch that only pass a call on (their frames are skipped to find who made it).
_WRAPPERS = ("overrides.py", "_tensor.py", os.path.join("autograd", "forward_ad.py"),
             os.path.join("_functorch", "predispatch.py"))


def tangent_mode(facts: Facts, keep: list):
    """A ``TorchFunctionMode`` that notes each operation of the snippet's that made a dual tensor."""
    import torch
    from torch.autograd import forward_ad
    from torch.overrides import TorchFunctionMode

    home = os.path.dirname(torch.__file__)
    inside = (home + os.sep, os.path.dirname(os.path.dirname(os.path.dirname(__file__))) + os.sep)
    wrappers = (__file__, *(os.path.join(home, name) for name in _WRAPPERS))

    class Tangents(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            if isinstance(result, torch.Tensor) and _snippets(inside, wrappers):
                primal, tangent = forward_ad.unpack_dual(result)
                facts.tangent_count += tangent is not None
                if tangent is not None and len(facts.tangents) < MOST_STEPS:
                    inputs = _tensors_in(list(args) + list((kwargs or {}).values()), torch.Tensor)
                    keep.extend([result, *inputs])  # their id() must stay theirs until the figure is drawn
                    for given in inputs:
                        facts.values.setdefault(id(given), _value_and_tangent(forward_ad, given))
                    for made in (result, *inputs):
                        facts.kinds_of[id(made)] = graph.kind_of(made)
                    facts.tangents.append(TangentStep(
                        op=_operation(func), result=id(result),
                        inputs=tuple(id(t) for t in inputs), value=brief(primal), tangent=brief(tangent)))
            return result

    return Tangents()


def _tensors_in(arguments: list, tensor_type) -> list:
    """The tensors among a call's ``arguments``, those in a list or tuple too (``torch.stack([a, b])``),
    each once, in order."""
    found: dict[int, object] = {}
    for argument in arguments:
        for item in argument if isinstance(argument, (list, tuple)) else (argument,):
            if isinstance(item, tensor_type):
                found.setdefault(id(item), item)
    return list(found.values())


def _snippets(inside: tuple[str, str], wrappers: tuple[str, ...]) -> bool:
    """Whether the torch function being handled was called by the snippet (see the module's doc)."""
    frame = sys._getframe(2)  # the frame that called the torch function (or a wrapper of torch's)
    while frame is not None and frame.f_code.co_filename in wrappers:
        frame = frame.f_back
    return frame is not None and not frame.f_code.co_filename.startswith(inside)


def _operation(func) -> str:
    """A torch function as the figure names it: ``pow`` for ``__pow__``, ``make_dual`` for
    ``_make_dual``, and ``mul_`` as it is (in place)."""
    name = getattr(func, "__name__", str(func))
    return name[2:-2] if name.startswith("__") and name.endswith("__") else name.lstrip("_")


def _value_and_tangent(forward_ad, tensor) -> tuple[str, str | None]:
    primal, tangent = forward_ad.unpack_dual(tensor)
    return brief(primal), (brief(tangent) if tangent is not None else None)
