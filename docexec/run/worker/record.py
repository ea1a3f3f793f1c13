"""Recording what autograd did while a snippet ran, in the snippet's own process, for its figure.

``Recorder(kinds).start()`` is called before the snippet runs and ``facts(tensors)`` once it has
finished (``docexec.graphs.teach.Facts``; the kinds are ``docexec.graphs.teach.KINDS``). The recording must not
change what the snippet prints or computes: the hooks it adds to Nodes are removed as soon as their
backward pass ends, every function it wraps calls the original with the same arguments, and it
keeps no reference that would change a tensor's life (only Nodes of graphs that ran backward).

* ``gradients``: ``torch.autograd.backward`` (which ``Tensor.backward`` calls) and
  ``torch.autograd.grad`` are wrapped; before the original runs, every Node reachable from the
  roots gets a hook (https://docs.pytorch.org/docs/stable/notes/autograd.html#backward-hooks-execution)
  that notes its step and the gradients it sent along each edge.
* ``hooks``: ``Tensor.register_hook`` and ``Tensor.register_post_accumulate_grad_hook`` are wrapped;
  a Node's ``register_hook`` / ``register_prehook`` (methods of C types, which cannot be wrapped) are
  seen through ``sys.setprofile``'s ``c_call`` events.
* ``cuts``: a ``TorchFunctionMode`` notes each tensor made by ``detach()``, or made from tensors that
  require grad while grad mode is off (``no_grad``, ``inference_mode``).
* ``saved`` and ``versions`` are read when the snippet has finished, from each Node's ``_saved_*``
  attributes (unpacking a saved tensor whose version moved raises the error that says both versions).
"""

from __future__ import annotations

import re
import sys

from docexec.graphs.teach import Facts, brief

_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+)")


class Recorder:
    """Records the facts of ``kinds`` (``docexec.graphs.teach.KINDS``) while a snippet runs."""

    def __init__(self, kinds: tuple[str, ...]):
        self.facts = Facts(kinds=tuple(kinds))
        self._undo: list = []  # how to take back each change start() made
        self._keep: list = []  # Nodes and tensors recorded about: their id() must stay theirs
        self._mode = None

    def start(self) -> None:
        import torch

        if "gradients" in self.facts.kinds:
            self._wrap(torch.autograd, "backward", self._backward)
            self._wrap(torch.autograd, "grad", self._backward)
        if "hooks" in self.facts.kinds:
            self._wrap(torch.Tensor, "register_hook", self._tensor_hook("hook"))
            self._wrap(torch.Tensor, "register_post_accumulate_grad_hook", self._tensor_hook("post-accumulate"))
            previous = sys.getprofile()
            sys.setprofile(self._profile)
            self._undo.append(lambda: sys.setprofile(previous))
        if "cuts" in self.facts.kinds:
            self._mode = _cut_mode(self.facts, self._keep)
            self._mode.__enter__()

    def stop(self) -> None:
        """Take back every change ``start`` made (before the figure is drawn)."""
        if self._mode is not None:
            self._mode.__exit__(None, None, None)
            self._mode = None
        for undo in reversed(self._undo):
            undo()
        self._undo.clear()

    def _wrap(self, owner, name: str, make) -> None:
        original = getattr(owner, name)
        setattr(owner, name, make(original))
        self._undo.append(lambda: setattr(owner, name, original))

    # -- gradients ------------------------------------------------------------------------------

    def _backward(self, original):
        recorder = self

        def recorded(tensors, *args, **kwargs):
            roots = [tensors] if hasattr(tensors, "grad_fn") else list(tensors)
            handles = recorder._hook_every_node([t.grad_fn for t in roots if getattr(t, "grad_fn", None)])
            try:
                return original(tensors, *args, **kwargs)
            finally:
                for handle in handles:
                    handle.remove()

        return recorded

    def _hook_every_node(self, roots: list) -> list:
        """Hook every Node below ``roots`` for one backward pass; a new pass replaces the last one's record."""
        self.facts.steps.clear()
        self.facts.sent.clear()
        self.facts.arrived.clear()
        handles, seen, stack = [], set(), list(roots)
        while stack and len(seen) < 500:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            self._keep.append(node)
            handles.append(node.register_hook(self._ran(node)))
            stack.extend(parent for parent, _ in node.next_functions)
        return handles

    def _ran(self, node):
        facts = self.facts

        def hook(grad_inputs, grad_outputs):
            facts.steps[id(node)] = len(facts.steps) + 1
            for number, value in enumerate(grad_inputs):
                if value is not None:
                    facts.sent[(id(node), number)] = brief(value)
            if grad_outputs and grad_outputs[0] is not None:
                facts.arrived[id(node)] = brief(grad_outputs[0])

        return hook

    # -- hooks ----------------------------------------------------------------------------------

    def _tensor_hook(self, kind: str):
        recorder = self

        def wrap(original):
            def registered(tensor, *args, **kwargs):
                recorder._hooked(tensor, kind)
                return original(tensor, *args, **kwargs)

            return registered

        return wrap

    def _hooked(self, obj, kind: str) -> None:
        self._keep.append(obj)
        counts = self.facts.hooked.setdefault(id(obj), {})
        counts[kind] = counts.get(kind, 0) + 1

    def _profile(self, frame, event, arg) -> None:
        if event != "c_call" or frame.f_code.co_filename == __file__:  # the recorder's own hooks do not count
            return
        if getattr(arg, "__name__", "") in ("register_hook", "register_prehook"):
            node = getattr(arg, "__self__", None)
            if node is not None and hasattr(node, "next_functions"):
                self._hooked(node, "prehook" if arg.__name__ == "register_prehook" else "hook")

    # -- when the snippet has finished --------------------------------------------------------------

    def facts_about(self, tensors: dict) -> Facts:
        """The facts, with what saved tensors and versions say now about the Nodes behind ``tensors``."""
        self.stop()
        if {"saved", "versions"} & set(self.facts.kinds):
            for node in _nodes(tensors):
                self._read_saved(node, tensors)
        return self.facts

    def _read_saved(self, node, tensors: dict) -> None:
        names = {id(t): n for n, t in tensors.items()}
        lines, stale = [], []
        for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
            what = attr.removeprefix("_saved_")
            try:
                value = getattr(node, attr)
            except RuntimeError as error:
                moved = _VERSIONS.search(str(error))
                if moved:
                    stale.append(f"{what}: saved at version {moved.group(2)}, now {moved.group(1)} ✗")
                    lines.append(f"saved {what}: changed since")
                else:
                    lines.append(f"saved {what}: freed")
                continue
            if hasattr(value, "grad_fn"):
                lines.append(f"saved {what} = {names[id(value)]}" if id(value) in names
                             else f"saved {what}: {_same_data(value, tensors) or _shape(value)}")
        if hasattr(type(node), "saved_tensors") and not type(node).__name__.endswith(("Backward0", "Backward1")):
            try:
                saved = ", ".join(names.get(id(t)) or _shape(t) for t in node.saved_tensors)
                self.facts.custom[id(node)] = [f"ctx saved: {saved or 'nothing'}"]
            except RuntimeError:
                self.facts.custom[id(node)] = ["ctx saved: freed"]
        if lines:
            self.facts.saved[id(node)] = lines
        if stale:
            self.facts.stale[id(node)] = stale


def _shape(tensor) -> str:
    dtype = str(tensor.dtype).replace("torch.", "")
    return f"shape {tuple(tensor.shape)} {dtype}" if tensor.dim() else f"scalar {dtype}"


def _same_data(value, tensors: dict) -> str:
    """``same data as y`` when a saved tensor is another object over the memory of a named one."""
    for name, tensor in tensors.items():
        if tensor.shape == value.shape and tensor.data_ptr() == value.data_ptr() and tensor.data_ptr():
            return f"same data as {name}"
    return ""


def _nodes(tensors: dict) -> list:
    found, seen = [], set()
    stack = [t.grad_fn for t in tensors.values() if t.grad_fn is not None]
    while stack and len(found) < 500:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(parent for parent, _ in node.next_functions)
    return found


def _cut_mode(facts: Facts, keep: list):
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
