"""The figure of forward mode: the operations that made dual tensors, each result with the value and
the tangent the run computed for it, in the order they ran (``figure=tangents``).

Forward mode records no graph: the values come from ``docexec.run.worker.record_tangents``, which
noted each operation as it ran. A box per input that carried no tangent of its own (``x`` and ``v``
of ``make_dual``) and per result, with an arrow from each input to the result it went into. The
boxes keep the graph's classes (``docexec.graphs.graph.STYLE``), so both palettes and the key apply;
the graph's class ``forward-mode`` tells the step-through (``docs/javascripts/steps.js``) to walk
it forward.
"""

from __future__ import annotations

from html import escape

from docexec.graphs import graph
from docexec.graphs.teach import _STEPS, Facts, _quote


def figure(display: str, tensors: dict, facts: Facts) -> dict:
    """``{"dot", "alt", "caption"}`` for the operations ``facts.tangents`` noted; ``tensors`` name them."""
    names = {id(t): name for name, t in tensors.items()}
    boxes, edges, words = _boxes(facts, names)
    font = 'fontname="Helvetica,Arial,sans-serif" fontsize=11'
    out = ["digraph forward {", '  rankdir=TB bgcolor="transparent" nodesep=0.25 ranksep=0.35 class="forward-mode"',
           f'  node [{font} color="#475569" penwidth=1]', '  edge [color="#475569"]']
    out += [f'  {box} [label="{_quote(label)}" class="{kind}" {graph.STYLE[kind]} tooltip="{_quote(tip)}"]'
            for box, label, kind, tip in boxes]
    out += [f'  {start} -> {end} [class="flow"]' for start, end in edges]
    out.append("}")
    count = facts.tangent_count
    caption = (f"At the end of <code>{escape(display.rpartition('/')[2])}</code>, forward mode had run {count} "
               f"operation{'s' if count != 1 else ''} that made dual tensors"
               + (f", of which the first {len(facts.tangents)} are drawn" if count > len(facts.tangents) else "")
               + ". Each result shows the value and the tangent the run computed for it, together, in the one "
               "forward pass; circled numbers give the order they ran in, and an arrow leads from each input to "
               "the result it went into.")
    return {"dot": "\n".join(out) + "\n", "alt": "forward mode ran " + "; ".join(words), "caption": caption}


def _boxes(facts: Facts, names: dict[int, str]) -> tuple[list, list, list]:
    """The boxes (id, label, class, tooltip), the arrows and the steps in words."""
    boxes, edges, words = [], [], []
    latest: dict[int, str] = {}  # tensor -> the box that shows it now (an in-place step shows it again)
    made: set[int] = set()  # tensors a step made (dual ones)
    for number, step in enumerate(facts.tangents, start=1):
        sources = []
        for given in dict.fromkeys(step.inputs):
            if given not in latest:
                latest[given] = f"t{sum(1 for box in boxes if box[0].startswith('t'))}"
                value, tangent = facts.values.get(given, ("?", None))
                name = names.get(given, "(unnamed)")
                lines = [name, f"value {value}"] + ([f"tangent {tangent}"] if tangent else [])
                boxes.append((latest[given], "\n".join(lines), facts.kinds_of.get(given, "tensor-nograd"),
                              f"{name}: an input of {step.op}" + ("" if tangent else ", with no tangent of its own")))
            sources.append(latest[given])
        box = f"s{number}"
        name = names.get(step.result, "(unnamed)")
        of = ", ".join(names.get(given, "(unnamed)") for given in dict.fromkeys(step.inputs))
        head = _STEPS[number - 1] if number <= len(_STEPS) else f"({number})"
        label = "\n".join([name, f"step {head}", f"{step.op} of {of}", f"value {step.value}",
                           f"tangent {step.tangent}"])
        dual_inputs = [given for given in step.inputs if given in made or facts.values.get(given, ("", None))[1]]
        how = ("its value and its tangent computed together" if dual_inputs
               else "a value paired with a tangent, as given")
        boxes.append((box, label, facts.kinds_of.get(step.result, "tensor-nograd"),
                      f"{name}: made by {step.op} in forward mode, {how}"))
        made.add(step.result)
        edges += [(source, box) for source in sources]
        latest[step.result] = box
        words.append(f"{step.op} of {of} gives {name} (value {step.value}, tangent {step.tangent})")
    return boxes, edges, words
