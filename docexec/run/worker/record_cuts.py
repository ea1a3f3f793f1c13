"""Recording where a snippet cut tensors off the graph, for its figure (``figure=cuts``; started by
``docexec.run.worker.record.Recorder``): a ``TorchFunctionMode`` notes each tensor made by
``detach()``, or made from tensors that require grad while grad mode is off (``no_grad``,
``inference_mode``), with the reason."""

from __future__ import annotations

from docexec.graphs.teach import Facts


def cut_mode(facts: Facts, keep: list):
    """A ``TorchFunctionMode`` that notes why each tensor it sees made is cut off from the graph."""
    import torch
    from torch.overrides import TorchFunctionMode

    class Cuts(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            if isinstance(result, torch.Tensor) and not result.requires_grad:
                reason = _why_cut(func, args, kwargs or {})
                if reason:
                    keep.append(result)
                    facts.cut[id(result)] = reason
            return result

    return Cuts()


def _why_cut(func, args, kwargs) -> str:
    import torch

    if getattr(func, "__name__", "") == "detach":
        return "detach()"
    inputs = [a for a in list(args) + list(kwargs.values()) if isinstance(a, torch.Tensor)]
    if any(t.requires_grad for t in inputs) and not torch.is_grad_enabled():
        return "made under inference_mode" if torch.is_inference_mode_enabled() else "made under no_grad"
    return ""
