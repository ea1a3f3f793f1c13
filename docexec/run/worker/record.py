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
  seen through ``sys.setprofile``'s ``c_return`` events (a call that raised added no hook). During a
  recorded backward pass a tensor's hook notes what it returned (the wrapper passes the example's
  function on wrapped, under its name); a pass that a hook starts is not recorded; a Node's hook is seen
  through ``sys.setprofile``'s ``call`` and ``return`` events of a function the engine calls itself, and
  belongs to the next Node whose step is noted (a Node's hooks run before the recorder's, which is
  registered last).
* ``cuts``: a ``TorchFunctionMode`` notes each tensor made by ``detach()``, or made from tensors that
  require grad while grad mode is off (``no_grad``, ``inference_mode``;
  ``docexec.run.worker.record_cuts``).
* ``tangents``: a ``TorchFunctionMode`` notes each operation that made a dual tensor (forward mode;
  ``docexec.run.worker.record_tangents``).
* ``saved`` and ``versions`` are read when the snippet has finished, from each Node's ``_saved_*``
  attributes (unpacking a saved tensor whose version moved raises the error that says both versions).
  With ``gradients`` too, they are also read as a backward pass begins: what a Node unpacks when its
  step comes, which the end of the snippet may find freed.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
import weakref

from docexec.core.files import STDLIB
from docexec.graphs.teach import Facts, brief
from docexec.run.worker.record_cuts import cut_mode

_VERSIONS = re.compile(r"is at version (\d+); expected version (\d+)")


class Recorder:
    """Records the facts of ``kinds`` (``docexec.graphs.teach.KINDS``) while a snippet runs."""

    def __init__(self, kinds: tuple[str, ...]):
        self.facts = Facts(kinds=tuple(kinds))
        self._undo: list = []  # how to take back each change start() made
        self._keep: list = []  # Nodes and tensors recorded about: their id() must stay theirs
        self._own_packing = False  # the example entered saved_tensors_hooks (``_packing``)
        self._passing = 0  # how many recorded backward passes are running (a hook may start one)
        self._node_hooks: list[str] = []  # what a Node's hooks did, until that Node's step is noted
        self._calls: dict[int, str] = {}  # frame id -> the hook running in it (``prehook before()``)
        self._before: dict[int, list] = {}  # Node -> what it held as the last pass began (``_Saved``)

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
        if "saved" in self.facts.kinds:
            self._wrap(torch.autograd.graph.saved_tensors_hooks, "__enter__", self._packing)
        if "cuts" in self.facts.kinds:
            self._enter(cut_mode(self.facts, self._keep))
        if "tangents" in self.facts.kinds:
            from docexec.run.worker.record_tangents import tangent_mode

            self._enter(tangent_mode(self.facts, self._keep))

    def _packing(self, original):
        """``saved_tensors_hooks.__enter__``, noting that the example packs saved tensors its own way:
        reading them back would run its unpack hook, which may print or count, so they are not read."""
        recorder = self

        def entered(hooks, *args, **kwargs):
            recorder._own_packing = True
            return original(hooks, *args, **kwargs)

        return entered

    def _enter(self, mode) -> None:
        mode.__enter__()
        self._undo.append(lambda: mode.__exit__(None, None, None))

    def stop(self) -> None:
        """Take back every change ``start`` made (before the figure is drawn)."""
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

        def recorded(*args, **kwargs):
            # backward(tensors, ...) and grad(outputs, ...), also given by keyword
            tensors = args[0] if args else kwargs.get("tensors", kwargs.get("outputs", ()))
            roots = [tensors] if hasattr(tensors, "grad_fn") else list(tensors)
            # a pass a hook starts inside a recorded one is not recorded: the figure shows the outer pass
            handles = [] if recorder._passing else \
                recorder._hook_every_node([t.grad_fn for t in roots if getattr(t, "grad_fn", None)])
            recorder._passing += 1
            try:
                return original(*args, **kwargs)
            finally:
                recorder._passing -= 1
                for handle in handles:
                    handle.remove()

        return recorded

    def _hook_every_node(self, roots: list) -> list:
        """Hook every Node below ``roots`` for one backward pass; a new pass replaces the last one's record."""
        for record in (self.facts.steps, self.facts.sent, self.facts.arrived, self.facts.fired, self._before):
            record.clear()
        self._node_hooks.clear()
        handles, seen, stack = [], set(), list(roots)
        while stack and len(seen) < 500:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            self._keep.append(node)
            handles.append(node.register_hook(self._ran(node)))
            if "saved" in self.facts.kinds and not self._own_packing:
                self._before[id(node)] = _saved_now(node)
            stack.extend(parent for parent, _ in node.next_functions)
        return handles

    def _ran(self, node):
        facts = self.facts

        def hook(grad_inputs, grad_outputs):
            if self._passing != 1:  # in a pass a hook started (``_backward``)
                return
            facts.steps[id(node)] = len(facts.steps) + 1
            if self._node_hooks:
                facts.fired.setdefault(id(node), []).extend(self._node_hooks)
                self._node_hooks.clear()
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
            def registered(tensor, hook, *args, **kwargs):
                handle = original(tensor, recorder._noting(id(tensor), kind, hook), *args, **kwargs)
                recorder._hooked(tensor, kind)  # once registered: a call that raised added no hook
                return handle

            return registered

        return wrap

    def _noting(self, tensor_id: int, kind: str, hook):
        """``hook``, noting what it returns when a recorded backward pass runs it."""
        recorder = self

        @_named_as(hook)
        def noted(*args, **kwargs):
            result = hook(*args, **kwargs)
            if recorder._passing == 1:  # in the recorded pass, not one a hook started
                recorder.facts.fired.setdefault(tensor_id, []).append(_returned(kind, hook, result))
            return result

        return noted

    def _hooked(self, obj, kind: str) -> None:
        self._keep.append(obj)
        counts = self.facts.hooked.setdefault(id(obj), {})
        counts[kind] = counts.get(kind, 0) + 1

    def _profile(self, frame, event, arg) -> None:
        if frame.f_code.co_filename == __file__:  # the recorder's own hooks do not count
            return
        if event in ("call", "return") and self._passing == 1:
            self._node_hook(frame, event, arg)
        if event != "c_return":  # registered: a call that raised added no hook
            return
        if getattr(arg, "__name__", "") in ("register_hook", "register_prehook"):
            node = getattr(arg, "__self__", None)
            if node is not None and hasattr(node, "next_functions"):
                self._hooked(node, "prehook" if arg.__name__ == "register_prehook" else "hook")

    def _node_hook(self, frame, event, arg) -> None:
        """A function the engine called itself (a Node's hook: a tensor's is called by ``noted``)."""
        if event == "call":
            caller = frame.f_back
            if caller is not None and caller.f_code.co_name == "_engine_run_backward" \
                    and not frame.f_code.co_filename.startswith(_not_hooks()):  # a custom Function's backward, a
                # module's full backward hook, logging asked by the engine: torch's own code, not the example's hooks
                given = _gradient_tuples(frame)
                if not given:  # an unpack hook of saved_tensors_hooks: no Node's hook
                    return
                kind = "hook" if given == 2 else "prehook"
                self._calls[id(frame)] = kind + " " + _called(frame.f_code.co_name)
        elif id(frame) in self._calls:
            self._node_hooks.append(f"{self._calls.pop(id(frame))}: returned {_brief_any(arg)}")

    # -- when the snippet has finished --------------------------------------------------------------

    def facts_about(self, tensors: dict) -> Facts:
        """The facts, with what saved tensors and versions say now about the Nodes behind ``tensors``."""
        self.stop()
        if {"saved", "versions"} & set(self.facts.kinds) and not self._own_packing:
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
                    lines.append(_freed(what, self._before.get(id(node), []), tensors))
                continue
            if hasattr(value, "grad_fn"):
                lines.append(f"saved {what}{_called_in(value, tensors)}")
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


@dataclasses.dataclass
class _Saved:
    """A saved tensor as a backward pass began: its attribute (``self``), a weak reference to it
    (none keeps it alive), and what names it once it is gone (its memory's address and shape)."""

    what: str
    tensor: weakref.ref
    data_ptr: int
    shape: tuple
    described: str


def _saved_now(node) -> list[_Saved]:
    """What ``node`` holds in its ``_saved_*`` tensors now."""
    found = []
    for attr in sorted(a for a in dir(node) if a.startswith("_saved_")):
        try:
            value = getattr(node, attr)
        except RuntimeError:
            continue
        if hasattr(value, "grad_fn"):
            found.append(_Saved(attr.removeprefix("_saved_"), weakref.ref(value), value.data_ptr(),
                                tuple(value.shape), _shape(value)))
    return found


def _freed(what: str, before: list[_Saved], tensors: dict) -> str:
    """``saved self = x (freed)`` for a tensor the last pass unpacked and then freed, else ``saved self: freed``."""
    for saved in before:
        if saved.what != what:
            continue
        value = saved.tensor()
        if value is not None:
            return f"saved {what}{_called_in(value, tensors)} (freed)"
        same = [name for name, t in tensors.items()
                if saved.data_ptr and t.data_ptr() == saved.data_ptr and tuple(t.shape) == saved.shape]
        return f"saved {what}: {f'same data as {same[0]}' if same else saved.described} (freed)"
    return f"saved {what}: freed"


def _called_in(value, tensors: dict) -> str:
    """`` = x`` for a named tensor, else ``: same data as y`` or ``: shape (3,) float32``."""
    for name, tensor in tensors.items():
        if tensor is value:
            return f" = {name}"
    return f": {_same_data(value, tensors) or _shape(value)}"


def _called(name: str) -> str:
    """A hook function as a figure names it: ``before()``, or ``(a lambda)``."""
    return "(a lambda)" if name == "<lambda>" else f"{name}()"


def _returned(kind: str, hook, result) -> str:
    """``hook (a lambda): returned [6, 10]``: what a tensor's hook did in a recorded pass."""
    return f"{kind} {_called(getattr(hook, '__name__', type(hook).__name__))}: returned {_brief_any(result)}"


def _named_as(hook):
    """``functools.wraps(hook)`` where ``hook`` is a function: what an example reads of a hook it
    registered (``y._backward_hooks``) names its own function; the identity (``is``) differs."""
    return functools.wraps(hook) if hasattr(hook, "__name__") else (lambda function: function)


def _gradient_tuples(frame) -> int:
    """How many tuples of gradients the function just called in ``frame`` was given: 1 for a Node's
    prehook (``grad_outputs``), 2 for its hook (``grad_inputs, grad_outputs``), 0 for what is no
    Node's hook (an unpack hook gets one tensor). A method's ``self`` (or ``cls``), whatever its
    name, comes before them; a parameter left at its default was not given."""
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount]
    given = [frame.f_locals.get(name) for name in names]
    method = _method_of(code, given[0]) if given else None
    if method is not None:
        given, names = given[1:], names[1:]
    function = method or frame.f_globals.get(code.co_name)
    defaults = getattr(function, "__defaults__", None) if getattr(function, "__code__", None) is code else None
    unset = dict(zip(names[len(names) - len(defaults or ()):], defaults or (), strict=False))
    count = 0
    for name, value in zip(names[:2], given[:2], strict=False):
        if not isinstance(value, tuple) or (name in unset and unset[name] is value):
            break
        count += 1
    return count


def _method_of(code, first):
    """The function of ``code`` if it is a method of ``first``'s class (or a classmethod of
    ``first``, a class), bound to ``first``; else None."""
    for owner in (first if isinstance(first, type) else type(first)).__mro__:
        for attribute in vars(owner).values():
            if getattr(getattr(attribute, "__func__", attribute), "__code__", None) is code:
                return None if isinstance(attribute, staticmethod) else getattr(attribute, "__func__", attribute)
    return None


def _not_hooks() -> tuple[str, ...]:
    """Where code lives that the engine's frame calls but that is no example's hook: torch's own (torch
    is imported: a backward pass is running) and the standard library's (``logging``)."""
    return (os.path.join(os.path.dirname(sys.modules["torch"].__file__), ""), *STDLIB)


def _brief_any(value) -> str:
    """A hook's result briefly: None, a tensor, or a tuple of gradients as a tuple (``([20, 20],)``)."""
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(brief(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return brief(value)


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
