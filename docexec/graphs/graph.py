"""Draw the autograd graph behind some tensors as Graphviz DOT text.

This file is the one the site uses for every figure, and it is shown whole on the page
"01 · The Computational Graph", so that readers can copy it: it needs only the standard library
and whatever tensors you pass it. Turn its text into a picture with Graphviz
(``dot -Tsvg graph.dot > graph.svg``), or in a notebook with ``graphviz.Source(text)``.

What is drawn (the graph PyTorch records, see https://docs.pytorch.org/docs/stable/autograd.html#autograd-graph):

* every backward Node reachable from the tensors' ``grad_fn`` through ``next_functions``, once,
  labelled with its class name (``MulBackward0``, ``AccumulateGrad``, ...);
* every tensor you name, once, with its shape, its dtype when not float32, and whether it is a
  leaf and requires grad. A leaf is joined to its ``AccumulateGrad`` Node, a non-leaf to its
  ``grad_fn``. Inputs that need no gradient (constants, detached tensors) get no Node, because
  PyTorch records none: ``next_functions`` holds ``(None, 0)`` for them.

Arrows point the way the forward pass ran: from a Node to the Node that used its result.
``backward()`` walks them in the other direction.
"""

# --8<-- [start:to_dot]


MAX_NODES = 60  # at most this many backward Nodes; the rest share one "…" box
MAX_TENSORS = 30  # at most this many named tensors; the rest share a box


def walk(tensors, limit=MAX_NODES, ids=None):
    """Collect the graph behind ``tensors`` (a mapping name -> tensor).

    Returns ``(nodes, edges)``. ``nodes`` is a list of ``(id, kind, label)``:
    ids ``t0, t1, ...`` for tensors and ``n0, n1, ...`` for backward Nodes in
    order of first visit; ``kind`` is ``tensor-leaf``, ``tensor-nonleaf``,
    ``tensor-nograd``, ``accumulate`` or ``backward``. ``edges`` is a list of
    ``(from id, to id, kind)``, ``kind`` being ``flow`` (between Nodes) or
    ``join`` (between a tensor and its Node). ``id()`` only recognises an
    object seen before, so the same graph always gives the same lists.
    Beyond ``limit`` Nodes, the rest are one box ``… N more Nodes``; beyond
    ``MAX_TENSORS`` tensors, likewise. ``ids``, if given, is filled with
    ``id(object) -> box id`` for whoever adds to the drawing.
    """
    nodes, node_ids, tensor_ids, visited = [], {}, {}, []
    tensors = _first(tensors, nodes)
    for name, tensor in tensors.items():
        if id(tensor) not in tensor_ids:
            tid = tensor_ids[id(tensor)] = f"t{len(tensor_ids)}"
            nodes.append((tid, kind_of(tensor), _tensor_label(name, tensor)))
    for tensor in tensors.values():  # depth first, first input first
        stack = [tensor.grad_fn] if tensor.grad_fn is not None else []
        while stack:
            node = stack.pop()
            if id(node) in node_ids:
                continue
            node_ids[id(node)] = f"n{len(visited)}"
            visited.append(node)  # keeps it alive: its id() stays its own
            name = type(node).__name__
            kind = "accumulate" if name == "AccumulateGrad" else "backward"
            nodes.append((node_ids[id(node)], kind, name))
            inputs = [p for p, _ in node.next_functions if p is not None]
            stack.extend(reversed(inputs))
    if len(visited) > limit:
        nodes, visited = _cut(nodes, visited, node_ids, limit)
    edges = _edges(tensors, visited, tensor_ids, node_ids, limit)
    if ids is not None:
        ids.update(tensor_ids)
        ids.update(node_ids)
    return nodes, edges


def _edges(tensors, visited, tensor_ids, node_ids, limit):
    """Each tensor joined to its Node, each Node to the Nodes of its inputs."""
    edges = []
    for tensor in tensors.values():
        if tensor.grad_fn is not None:
            made_by = node_ids[id(tensor.grad_fn)]
            edge = (made_by, tensor_ids[id(tensor)], "join")
            if edge not in edges:
                edges.append(edge)
    for node in visited:
        leaf = getattr(node, "variable", None)  # AccumulateGrad holds its leaf
        if leaf is not None and id(leaf) in tensor_ids:
            edges.append((tensor_ids[id(leaf)], node_ids[id(node)], "join"))
        for parent, _ in node.next_functions:
            if parent is not None:
                edge = (node_ids[id(parent)], node_ids[id(node)], "flow")
                if edge[0] != f"n{limit}" or edge not in edges:
                    edges.append(edge)
    return edges


def _first(tensors, nodes):
    """The first ``MAX_TENSORS`` tensors; the others share one box."""
    if len(tensors) <= MAX_TENSORS:
        return tensors
    label = f"… {len(tensors) - MAX_TENSORS} more tensors"
    nodes.append((f"t{MAX_TENSORS}", "tensor-nograd", label))
    return dict(list(tensors.items())[:MAX_TENSORS])


def _cut(nodes, visited, node_ids, limit):
    """Keep the first ``limit`` Nodes; the others share one box."""
    more = f"n{limit}"
    nodes = [n for n in nodes
             if not n[0].startswith("n") or int(n[0][1:]) < limit]
    nodes.append((more, "backward", f"… {len(visited) - limit} more Nodes"))
    for node in visited[limit:]:
        node_ids[id(node)] = more
    return nodes, visited[:limit]


def kind_of(tensor):
    """The class in ``STYLE`` of a tensor's box."""
    if tensor.grad_fn is not None:
        return "tensor-nonleaf"
    return "tensor-leaf" if tensor.requires_grad else "tensor-nograd"


def _tensor_label(name, tensor):
    shape = "scalar" if tensor.dim() == 0 else f"shape {tuple(tensor.shape)}"
    dtype = str(tensor.dtype).replace("torch.", "")
    facts = [shape] + ([dtype] if dtype != "float32" else [])
    kind = "non-leaf" if tensor.grad_fn is not None else "leaf"
    grad = "requires grad" if tensor.requires_grad else "no grad"
    return f"{name}\n{' · '.join(facts)}\n{kind}\n{grad}"


def direction(nodes, edges):
    """``"TB"`` (top to bottom) for a graph at least as deep as it is broad,
    such as a long chain, else ``"LR"`` (left to right): a page's column
    limits a figure's width, not its height. Depth counts the boxes on the
    longest path; breadth, the most boxes at the same depth."""
    depth = {node_id: 0 for node_id, _, _ in nodes}
    for _ in nodes:  # as many rounds as boxes, at most: ends on any graph
        changed = False
        for start, end, _ in edges:
            if start != end and depth[end] <= depth[start]:
                depth[end], changed = depth[start] + 1, True
        if not changed:
            break
    levels = list(depth.values()) or [0]
    broadest = max(levels.count(level) for level in levels)
    return "TB" if broadest <= max(levels) + 1 else "LR"


STYLE = {
    "tensor-leaf": 'shape=box style="rounded,filled" fillcolor="#dbeafe"',
    "tensor-nonleaf": 'shape=box style="rounded,filled" fillcolor="#ede9fe"',
    "tensor-nograd":
        'shape=box style="rounded,dashed,filled" fillcolor="#f3f4f6"',
    "accumulate": 'shape=box style=filled fillcolor="#dcfce7"',
    "backward": 'shape=box style=filled fillcolor="#fef3c7"',
    "flow": "",
    "join": 'style=dashed arrowhead=none',
}


def to_dot(tensors, name="autograd", notes=None):
    """Return DOT text for the autograd graph behind ``tensors``.

    Args:
        tensors: a mapping of variable name -> ``torch.Tensor`` (for example
            ``{"x": x, "y": y}``); its order decides the order of the boxes.
        name: the graph's name in the DOT text (letters, digits, ``_``).
        notes: what a caller adds (the site adds tooltips and recorded
            facts): box id, or edge ``(from, to)`` (``(from, to, n)`` for
            the n-th of several arrows between the same two boxes, from 0)
            -> a dict with ``lines`` (under the label) and ``attrs`` (more
            DOT attributes).

    Returns:
        The DOT source as a ``str`` ending in a newline: byte-identical for
        the same graph. Long chains run top to bottom (``direction``).
    """
    notes = notes or {}
    nodes, edges = walk(tensors)
    font = 'fontname="Helvetica,Arial,sans-serif" fontsize=11'
    out = [f"digraph {name} {{",
           f'  rankdir={direction(nodes, edges)} bgcolor="transparent"'
           " nodesep=0.25 ranksep=0.35",
           f'  node [{font} color="#475569" penwidth=1]',
           '  edge [color="#475569"]']
    for node_id, kind, label in nodes:
        note = notes.get(node_id, {})
        text = _quote("\n".join([label, *note.get("lines", [])]))
        more = f" {note['attrs']}" if note.get("attrs") else ""
        out.append(f'  {node_id} [label="{text}" class="{kind}" '
                   f'{STYLE[kind]}{more}]')
    drawn = {}  # arrows drawn so far between two boxes
    for start, end, kind in edges:
        nth = drawn[start, end] = drawn.get((start, end), -1) + 1
        note = notes.get((start, end, nth), notes.get((start, end), {}))
        style = " ".join(filter(None, [STYLE[kind], note.get("attrs")]))
        style = f" {style}" if style else ""
        out.append(f'  {start} -> {end} [class="{kind}"{style}]')
    out.append("}")
    return "\n".join(out) + "\n"


def _quote(text):
    """``text`` inside a DOT string: backslashes, quotes, line breaks."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\n", "\\n")
# --8<-- [end:to_dot]


def describe(tensors):
    """Say in words what ``to_dot`` draws, for alt text: each chain from a leaf to a named result.

    Example: ``"x → AccumulateGrad → MulBackward0 (y) → AddBackward0 (z)"``. Returns "" when
    ``tensors`` hold no graph.
    """
    nodes, edges = walk(tensors)
    labels = {node_id: label.split("\n")[0] for node_id, _, label in nodes}
    outputs = {}
    for start, end, kind in edges:
        if kind == "join" and end.startswith("t"):
            outputs.setdefault(start, []).append(labels[end])
    forward = {}
    for start, end, kind in edges:
        if kind == "flow" or (kind == "join" and start.startswith("t")):
            forward.setdefault(start, []).append(end)
    targets = {end for ends in forward.values() for end in ends}
    starts = [node_id for node_id, _, _ in nodes if node_id in forward and node_id not in targets]

    def name(node_id):
        return labels[node_id] + (f" ({', '.join(outputs[node_id])})" if node_id in outputs else "")

    chains = _chains(starts, forward, name)
    linked = {end for _, end, _ in edges} | {start for start, _, _ in edges}
    truncated = any(label.startswith("… ") for label in labels.values())
    alone = [] if truncated else [labels[i] for i, kind, _ in nodes if kind.startswith("tensor") and i not in linked]
    text = "; ".join(chains)
    if alone:
        text += ("; " if text else "") + "not in the graph: " + ", ".join(alone)
    return text


def _chains(starts, forward, name, most=8):
    """Every path from each of ``starts`` along ``forward`` to a Node with nothing after it, as
    text, depth first (first input first): at most ``most``, then "and more paths". Paths can
    multiply at every merge, so a bounded number of them is looked at."""
    chains, budget = [], 2000
    for start in starts:
        paths = [[start]]
        while paths and len(chains) < most and budget > 0:
            budget -= 1
            path = paths.pop()
            nxt = list(dict.fromkeys(forward.get(path[-1], [])))
            chain = " → ".join(name(n) for n in path)
            if not nxt and chain not in chains:
                chains.append(chain)
            paths.extend(path + [n] for n in reversed(nxt))
    if budget <= 0 or len(chains) >= most:
        chains.append("and more paths")
    return chains


def named_tensors(namespace):
    """The tensors among a module's globals (``vars(module)``), in definition order.

    A tensor bound to several names is kept under the first. Names starting with ``_`` are skipped.
    """
    found, seen = {}, set()
    for key, value in list(namespace.items()):
        if key.startswith("_") or not _is_tensor(value) or id(value) in seen:
            continue
        seen.add(id(value))
        found[key] = value
    return found


class DrawError(ValueError):
    """A name of option ``draw`` that holds no tensor of its own when the example ends."""


_MISSING = object()


def chosen_tensors(namespace, names):
    """The tensors ``names`` reach in a module's globals, each a global or an attribute path from one
    (``model.weight``), under those names.

    Raises:
        DrawError: a name reaches nothing, something other than a tensor, a tensor an earlier name
            reached, or an attribute that raised; the message says which.
    """
    found, first = {}, {}
    for name in names:
        value = _reach(namespace, name)
        if not _is_tensor(value):
            what = "nothing" if value is _MISSING else "None" if value is None else \
                f"a {type(value).__name__}, not a tensor"
            raise DrawError(f"the figure draws {name} (option draw), which is {what} when the example ends")
        if id(value) in first:
            raise DrawError(f"the figure draws {name} (option draw), which is the tensor {first[id(value)]} "
                              "names too: give one name")
        first[id(value)] = name
        found[name] = value
    return found


def _reach(namespace, name):
    """What the global or attribute path ``name`` holds (``_MISSING`` where a part is missing)."""
    head, *attributes = name.split(".")
    value = namespace.get(head, _MISSING)
    for attribute in attributes:
        if value is _MISSING:
            break
        try:
            value = getattr(value, attribute, _MISSING)
        except Exception as exc:  # noqa: BLE001 - a property of the example's own: said with the name
            raise DrawError(f"the figure draws {name} (option draw), and reading .{attribute} raised "
                              f"{type(exc).__name__}: {exc}") from None
    return value


def has_graph(tensors):
    """Whether any of ``tensors`` has a ``grad_fn``: there is a recorded graph to draw."""
    return any(t.grad_fn is not None for t in tensors.values())


def _is_tensor(value):
    cls = type(value)
    return any(base.__module__ == "torch" and base.__name__ == "Tensor" for base in cls.__mro__)
