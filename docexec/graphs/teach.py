"""Figures that teach: what a figure says on top of the graph's structure, from facts the run recorded.

``docexec.graphs.graph`` draws the structure (tensors, Nodes, ``next_functions``). This module adds, for the
site's figures: a tooltip on every box saying what it is (an SVG ``<title>``: what a Node computes,
what a tensor is), the facts ``docexec.run.worker.record`` recorded while the example ran (gradients
that flowed and the order Nodes ran, saved tensors, versions, hooks, cuts), a caption that says
what the figure shows, and the same facts in words for the text alternative.

An example chooses its facts with an option line: ``# docexec: figure=gradients`` (or several
joined with ``+``); see ``KINDS``.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from html import escape

from docexec.graphs import graph
from docexec.graphs.tooltips import node_tooltip, tensor_tooltip
from docexec.source.snippets import FIGURE_KINDS as KINDS  # what an example may ask its figure to show

#: Circled step numbers for the order Nodes ran in (then plain numbers).
_STEPS = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


@dataclass
class TangentStep:
    """An operation that made a dual tensor: its name (``sin``), the ``id()`` of its result and of
    its tensor inputs, and the value and tangent it computed, briefly (``brief``)."""

    op: str
    result: int
    inputs: tuple[int, ...]
    value: str
    tangent: str


@dataclass
class Facts:
    """What the run recorded, by ``id()`` of the objects (Nodes, tensors) it was recorded about.

    Attributes:
        kinds: the kinds asked for (``KINDS``).
        steps: Node -> its step in the last backward pass (1 = the first to run; a figure numbers the
            Nodes it draws in that order, from 1).
        sent: ``(Node, input number)`` -> the gradient it sent along that edge, briefly.
        arrived: Node -> the gradient that arrived at it (for ``AccumulateGrad``: what was added
            into the leaf's ``.grad``), briefly.
        saved: Node -> lines saying what it saved (``self = x``, ``result: (3,)``, ``freed``).
        stale: Node -> the saved tensors whose version moved (``self: saved at version 0, now 1``).
        hooked: object -> how many hooks it got, by kind (``{"hook": 1, "prehook": 1}``).
        cut: tensor -> why it is outside the graph (``made under no_grad``, ``detach()``).
        custom: Node -> what its ``ctx`` saved, for a custom ``autograd.Function``.
        fired: Node or tensor -> what each of its hooks returned in the last backward pass
            (``prehook before(): returned None``), in the order they ran.
        tangents: the operations that made a dual tensor (forward mode), in the order they ran.
        values: an input of one of those -> its value and its tangent (None for a plain tensor).
        kinds_of: a tensor of those -> its class in ``graph.STYLE`` (``tensor-nograd``, ...).
        tangent_count: how many operations made a dual tensor (``tangents`` stops at a limit).
    """

    kinds: tuple[str, ...] = ()
    steps: dict[int, int] = field(default_factory=dict)
    sent: dict[tuple[int, int], str] = field(default_factory=dict)
    arrived: dict[int, str] = field(default_factory=dict)
    saved: dict[int, list[str]] = field(default_factory=dict)
    stale: dict[int, list[str]] = field(default_factory=dict)
    hooked: dict[int, dict[str, int]] = field(default_factory=dict)
    cut: dict[int, str] = field(default_factory=dict)
    custom: dict[int, list[str]] = field(default_factory=dict)
    fired: dict[int, list[str]] = field(default_factory=dict)
    tangents: list[TangentStep] = field(default_factory=list)
    values: dict[int, tuple[str, str | None]] = field(default_factory=dict)
    kinds_of: dict[int, str] = field(default_factory=dict)
    tangent_count: int = 0


def _grad(tensor):
    """``tensor.grad`` where PyTorch keeps one (a leaf, or a non-leaf after ``retain_grad()``), else
    None: reading a non-leaf's ``.grad`` otherwise warns, and that warning is no output of the example's."""
    return tensor.grad if tensor.is_leaf or tensor.retains_grad else None


def brief(value) -> str:
    """A tensor in a few characters, the same on every run: its values (four significant digits;
    at most four of them, then ``…``) and, unless it is a scalar or a short vector, its shape."""
    if value is None:
        return "None"
    if not hasattr(value, "detach"):
        return str(value)
    flat = value.detach().reshape(-1).tolist()
    shown = ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in flat[:4])
    if len(flat) > 4:
        shown += ", …"
    if value.dim() == 0:
        return shown
    shape = "" if value.dim() == 1 and len(flat) <= 4 else f" {tuple(value.shape)}"
    return f"[{shown}]{shape}"


# -- the notes on a drawing ------------------------------------------------------------------

def parameter_names(namespace: dict) -> dict[int, str]:
    """The parameters of the modules among an example's globals, by ``id()``: the expression a
    reader would write for each (``model[0].weight``), under the first module that holds it. Names
    starting with ``_`` are skipped, as in ``graph.named_tensors``."""
    nn = getattr(sys.modules.get("torch"), "nn", None)
    found: dict[int, str] = {}
    for key, value in list(namespace.items()):
        if nn is not None and not key.startswith("_") and isinstance(value, nn.Module):
            for path, parameter in value.named_parameters():
                found.setdefault(id(parameter), _written(nn, key, value, path))
    return found


def _written(nn, name: str, module, path: str) -> str:
    """``name`` and the dotted ``path`` (from ``named_parameters``) as Python code reaches it:
    ``model[0].weight`` in a Sequential, ``blocks['enc'].weight`` in a ModuleDict, and no
    ``_orig_mod`` for a module ``torch.compile`` wrapped (its attributes reach the original's)."""
    text, here = name, module
    for part in path.split("."):
        if part == "_orig_mod" and type(here).__name__ == "OptimizedModule":
            here = getattr(here, part)
            continue
        if isinstance(here, (nn.Sequential, nn.ModuleList)) and part.isdigit():
            text += f"[{part}]"
        elif isinstance(here, nn.ModuleDict):
            text += f"[{part!r}]"
        else:
            text += f".{part}"
        here = getattr(here, part, None)
    return text


def notes(tensors: dict, facts: Facts | None, parameters: dict[int, str] | None = None) -> dict:
    """What ``graph.to_dot(tensors, notes=...)`` adds: a tooltip on every box, and the recorded facts.

    Args:
        tensors: the named tensors (``graph.named_tensors``), as the run left them.
        facts: what the run recorded (``docexec.run.worker.record``), or None for the structure alone.
        parameters: the modules' parameters by ``id()`` (``parameter_names``), to say which one an
            ``AccumulateGrad`` the figure draws no tensor above is for.
    """
    ids: dict[int, str] = {}
    nodes, edges = graph.walk(tensors, ids=ids)
    objects = _objects(tensors)
    if facts and facts.steps:  # number the Nodes drawn in the order they ran, from 1
        ran = sorted((step, obj) for obj, step in facts.steps.items() if obj in ids)
        facts = dataclasses.replace(facts, steps={obj: rank for rank, (_, obj) in enumerate(ran, start=1)})
    drawn = {id(t) for t in tensors.values()}
    found: dict = {}
    for box, _, _ in nodes:
        found[box] = {"lines": [], "attrs": ""}
    for obj_id, box in ids.items():
        obj = objects.get(obj_id)
        if obj is None or box not in found:
            continue
        if box.startswith("t"):
            name = next((n for n, t in tensors.items() if id(t) == obj_id), box)
            found[box] = _tensor_note(name, obj, facts)
        else:
            found[box] = _node_note(obj, facts, drawn, parameters or {})
    if facts and "gradients" in facts.kinds:
        _edge_notes(found, ids, objects, facts)
    return {key: _dot_note(value) for key, value in found.items()}


def _objects(tensors: dict) -> dict[int, object]:
    """Every tensor and Node ``graph.walk`` may draw, by ``id()``."""
    found = {id(t): t for t in tensors.values()}
    stack = [t.grad_fn for t in tensors.values() if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in found:
            continue
        found[id(node)] = node
        stack.extend(p for p, _ in node.next_functions if p is not None)
    return found


def _tensor_note(name: str, tensor, facts: Facts | None) -> dict:
    lines, attrs = [], ""
    kinds = facts.kinds if facts else ()
    if "gradients" in kinds and _grad(tensor) is not None:
        lines.append(f".grad = {brief(tensor.grad)}")
    if "versions" in kinds:
        lines.append(f"version {tensor._version}")
    if "hooks" in kinds and facts.hooked.get(id(tensor)):
        lines += _hook_lines(id(tensor), facts)
        attrs = "peripheries=2"
    if "cuts" in kinds and id(tensor) in facts.cut:
        lines.append(f"cut: {facts.cut[id(tensor)]}")
    return {"lines": lines, "attrs": attrs, "tooltip": tensor_tooltip(name, tensor)}


def _node_note(node, facts: Facts | None, named: set[int], parameters: dict[int, str]) -> dict:
    """A Node's tooltip, step number and recorded facts; an ``AccumulateGrad`` whose leaf the
    figure does not draw (``named`` holds the ids of the tensors it draws) says which leaf it is
    for: a module's parameter by its path (``parameters``), another by its shape."""
    lines, attrs, head = [], "", ""
    kinds = facts.kinds if facts else ()
    leaf = getattr(node, "variable", None) if type(node).__name__ == "AccumulateGrad" else None
    if leaf is not None and id(leaf) not in named and leaf.is_leaf:
        lines.append(_undrawn_leaf(leaf, parameters.get(id(leaf))))
    if "gradients" in kinds and id(node) in facts.steps:
        step = facts.steps[id(node)]
        head = _STEPS[step - 1] if step <= len(_STEPS) else f"({step})"
        if type(node).__name__ == "AccumulateGrad" and id(node) in facts.arrived:
            lines.append(f"adds {facts.arrived[id(node)]}")
    if "saved" in kinds:
        lines += facts.saved.get(id(node), [])
        lines += facts.custom.get(id(node), [])
    if "versions" in kinds and facts.stale.get(id(node)):
        lines += facts.stale[id(node)]
        kind = "accumulate" if type(node).__name__ == "AccumulateGrad" else "backward"
        attrs = f'color="#dc2626" penwidth=2 class="{kind} stale"'
    if "hooks" in kinds and facts.hooked.get(id(node)):
        lines += _hook_lines(id(node), facts)
        attrs = "peripheries=2"
    return {"lines": lines, "attrs": attrs, "tooltip": node_tooltip(node), "head": head}


def _undrawn_leaf(leaf, path: str | None) -> str:
    """Which leaf an ``AccumulateGrad`` is for, when the figure draws no tensor above it."""
    shape = "" if leaf.dim() == 0 else f", {tuple(leaf.shape)}"
    if path is not None:
        return f"of {path}{shape}"
    return "of a scalar leaf not drawn" if leaf.dim() == 0 else f"of a leaf not drawn{shape}"


def _hooks_line(counts: dict[str, int]) -> str:
    return "hooks: " + ", ".join(f"{kind} ×{n}" for kind, n in sorted(counts.items()))


def _hook_lines(obj_id: int, facts: Facts) -> list[str]:
    """What each hook on a box returned in the last backward pass, and how many hooks of each kind
    it has where those lines do not account for all of them (none ran, or one the run could not
    tell apart: a ``functools.partial``, a classmethod)."""
    fired, counts = facts.fired.get(obj_id, []), facts.hooked.get(obj_id, {})
    told = {kind: sum(line.split(" ", 1)[0] == kind for line in fired) for kind in counts}
    return fired + ([_hooks_line(counts)] if any(told[kind] != n for kind, n in counts.items()) else [])


def _edge_notes(found: dict, ids: dict[int, str], objects: dict, facts: Facts) -> None:
    """The gradient each Node sent along each of its edges in the last backward pass, keyed by
    edge and by which of the arrows between the same two Nodes it is (``graph.to_dot``)."""
    for (node_id, number), value in facts.sent.items():
        node = objects.get(node_id)
        if node is None or id(node) not in ids:
            continue
        parent = node.next_functions[number][0] if number < len(node.next_functions) else None
        if parent is None or id(parent) not in ids:
            continue
        nth = sum(1 for other, _ in node.next_functions[:number] if other is parent)  # x * x: two arrows
        found[(ids[id(parent)], ids[id(node)], nth)] = {"label": value, "tooltip": f"gradient sent back: {value}"}


def _dot_note(note: dict) -> dict:
    """A note as ``graph.to_dot`` takes it: ``lines`` and DOT ``attrs``."""
    attrs = [note["attrs"]] if note.get("attrs") else []
    if note.get("tooltip"):
        attrs.append(f'tooltip="{_quote(note["tooltip"])}"')
    if note.get("label"):
        attrs.append(f'label=" {_quote(note["label"])}" fontname="Helvetica,Arial,sans-serif" fontsize=10 '
                     'fontcolor="#b45309" class="flow gradient"')
    lines = list(note.get("lines", []))
    if note.get("head"):
        lines.insert(0, f"step {note['head']}")
    return {"lines": lines, "attrs": " ".join(attrs)}


def _quote(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


# -- in words --------------------------------------------------------------------------------

def in_words(tensors: dict, facts: Facts | None) -> str:
    """The recorded facts in words, for the figure's text alternative ("" without facts)."""
    if not facts or not facts.kinds:
        return ""
    objects = _objects(tensors)
    parts = []
    if "gradients" in facts.kinds and facts.steps:
        order = sorted(facts.steps, key=facts.steps.get)
        parts.append("backward ran " + ", ".join(type(objects[i]).__name__ for i in order if i in objects))
        grads = [f"{name}.grad = {brief(t.grad)}" for name, t in tensors.items() if _grad(t) is not None]
        if grads:
            parts.append("; ".join(grads))
    for kind, found in (("saved", facts.saved), ("versions", facts.stale), ("saved", facts.custom)):
        if kind in facts.kinds:
            parts += [f"{type(objects[i]).__name__} {'; '.join(v)}" for i, v in found.items() if i in objects and v]
    if "hooks" in facts.kinds and facts.hooked:
        names = {id(t): n for n, t in tensors.items()}
        parts += [f"{names.get(i) or type(objects[i]).__name__} has {_hooks_line(c)}" for i, c in facts.hooked.items()
                  if i in objects and not facts.fired.get(i)]
        parts += [f"on {names.get(i) or type(objects[i]).__name__}, {'; '.join(v)}" for i, v in facts.fired.items()
                  if i in objects]
    if "cuts" in facts.kinds:
        parts += [f"{name} is cut off: {facts.cut[id(t)]}" for name, t in tensors.items() if id(t) in facts.cut]
    return "; ".join(parts)


def caption(path: str, tensors: dict, facts: Facts | None) -> str:
    """What a figure shows, in a sentence or two (HTML), from its graph and its facts: how many
    Nodes stand behind the tensors the example ends with (all of them, where the drawing stops at
    ``graph.MAX_NODES``), and from which of its leaves."""
    ids: dict[int, str] = {}
    nodes, edges = graph.walk(tensors, limit=_NO_LIMIT, ids=ids)
    count = sum(1 for _, kind, _ in nodes if kind in ("backward", "accumulate"))
    joined = {start for start, end, kind in edges if kind == "join" and end.startswith("n")}
    leaves = [name for name, t in tensors.items() if t.grad_fn is None and t.requires_grad]
    inside = [name for name in leaves if ids.get(id(tensors[name])) in joined]
    outside = [name for name in leaves if name not in inside]
    name = escape(path.rpartition("/")[2])
    if count:
        text = (f"At the end of <code>{name}</code>, {count:,} Node{'s' if count != 1 else ''} stand"
                f"{'s' if count == 1 else ''} behind its tensors" + (f", from {_leaves(inside)}" if inside else "")
                + (f", of which the first {graph.MAX_NODES} are drawn" if count > graph.MAX_NODES else "") + ".")
        if outside:
            text += f" Not in the graph: {_leaves(outside)}."
    else:  # the example deleted what it recorded, or recorded nothing
        text = f"At the end of <code>{name}</code>, no Node stands behind its tensors" + (
            f", only {_leaves(leaves)}" if leaves else "") + "."
    arrows = any(kind == "flow" for _, _, kind in edges)
    kinds = facts.kinds if facts else ()
    said = {
        "gradients": "Circled numbers give the order the Nodes ran in during the last backward pass; the label "
                     "on each arrow is the gradient sent back along it (its shape follows the values of a "
                     "gradient with more than four of them).",
        "saved": "Each Node lists what it saved for its backward step.",
        "versions": "Each tensor shows its version counter; a red Node saved a tensor that changed since.",
        "hooks": "A double outline marks what got a hook; a line in it says what each hook returned, where "
                 "the backward pass ran it.",
        "cuts": "A dashed box outside the graph says why it was cut off.",
    }
    if any(line.endswith("(freed)") for lines in (facts.saved.values() if facts else ()) for line in lines):
        said["saved"] += (" Marked (freed): the backward pass unpacked it when that Node's step came, "
                          "then the Node let go of it.")
    extra = " ".join(said[kind] for kind in KINDS if kind in kinds)
    if not extra and arrows:
        extra = "Arrows follow the forward pass; <code>backward()</code> walks them in reverse."
    return f"{text} {extra}".rstrip()


def _leaves(names: list[str]) -> str:
    """``the leaf <code>x</code>`` or ``the leaves <code>x</code>, <code>w</code>``."""
    return f"the {'leaf' if len(names) == 1 else 'leaves'} " + ", ".join(f"<code>{escape(n)}</code>" for n in names)


#: A limit ``graph.walk`` never reaches: the caption counts every Node.
_NO_LIMIT = 10**9


# -- the legend (the page calls it the key to the figures) ------------------------------------

#: The legend in words (its text alternative).
LEGEND_WORDS = ("a rounded blue box is a leaf tensor that requires grad; a rounded purple box a non-leaf "
             "tensor; a dashed grey box a tensor that requires no grad, or was cut off; a green box an "
             "AccumulateGrad Node; a yellow box any other backward Node; an arrow goes the way the forward "
             "pass ran (backward() runs against it); a dashed line joins a tensor and its Node; a number on an "
             "arrow is the gradient sent back along it; a circled number the order a Node ran in; a double "
             "outline marks a hook, and a line such as hook f(): returned None what it returned when it ran; "
             "a red outline a Node whose saved tensor changed after it was saved")


def legend_dot() -> str:
    """DOT text of the key to the figures: one box, line and mark of each kind the figures use,
    styled by ``graph.STYLE`` itself (so the key cannot drift from the figures)."""
    style = graph.STYLE
    boxes = [
        ("k_leaf", "tensor-leaf", "x\\nleaf tensor,\\nrequires grad", ""),
        ("k_nonleaf", "tensor-nonleaf", "y\\nnon-leaf tensor", ""),
        ("k_nograd", "tensor-nograd", "c\\nrequires no grad,\\nor cut off", ""),
        ("k_acc", "accumulate", "AccumulateGrad\\nstep ③", ""),
        ("k_node", "backward", "MulBackward0\\nstep ②\\nsaved self = x", ""),
        ("k_hooked", "backward", "a Node or tensor\\nwith a hook\\nhook f(): returned None", "peripheries=2"),
        ("k_stale", "backward stale", "a Node whose saved\\ntensor changed\\nafter it was saved",
         'color="#dc2626" penwidth=2'),
    ]
    out = ["digraph key {", '  rankdir=TB bgcolor="transparent" nodesep=0.2 ranksep=0.3',
           '  node [fontname="Helvetica,Arial,sans-serif" fontsize=11 color="#475569" penwidth=1]',
           '  edge [color="#475569" fontname="Helvetica,Arial,sans-serif" fontsize=10]']
    for name, kind, label, extra in boxes:
        out.append(f'  {name} [label="{label}" class="{kind}" {style[kind.split()[0]]}{" " + extra if extra else ""}]')
    out += ['  k_acc -> k_node [class="flow gradient" label=" [3, 4]: gradient sent back" fontcolor="#b45309"]',
            f'  k_leaf -> k_acc [class="join" {style["join"]}]',
            '  k_node -> k_nonleaf [class="flow" label=" an arrow: the forward pass\\n (backward() runs against it)"]',
            "  k_nograd -> k_hooked [style=invis]", "  k_hooked -> k_stale [style=invis]", "}"]
    return "\n".join(out) + "\n"
