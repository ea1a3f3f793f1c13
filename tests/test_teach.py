"""Figures that teach: the facts recorded while an example ran, drawn on its graph (docexec.graphs.teach,
docexec.run.worker.record), one golden DOT file per kind of fact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from docexec.graphs import figures, teach
from docexec.source.snippets import discover, options

from .conftest import ROOT, run_all, write_snippets

FOLDER = "tests/fixtures/figures"
GOLDEN = Path(__file__).parent / "golden" / "teach"


@pytest.fixture(scope="module")
def results():
    return run_all(ROOT, FOLDER, cache=False)


@pytest.mark.parametrize("name", ["gradients", "saved", "versions", "hooks", "cuts", "custom", "hooks_ran",
                                  "saved_freed", "tangents"])
def test_each_kind_of_fact_is_drawn_as_the_golden_file_says(results, name):
    """gradients: the order the Nodes ran, the gradient along each arrow, each leaf's .grad; saved:
    what each Node kept and which named tensor it is; versions: a Node whose saved tensor moved;
    hooks: what got a hook; cuts: why a tensor is outside the graph; custom: a custom Function's
    Node under its own name, with what its ctx saved. hooks_ran: what each hook (a tensor's, a
    Node's prehook and hook, a post-accumulate hook) returned in the pass, and a hook that never
    ran counted only; saved_freed: what the last pass unpacked and then freed, named; tangents: the
    operations forward mode ran (not printing a dual tensor), each result's value and tangent, an
    in-place step shown again under its own name."""
    result = results.runs[f"{FOLDER}/{name}.py"]
    assert result.ok, result.failure.message
    assert result.graph.dot == (GOLDEN / f"{name}.dot").read_text(encoding="utf-8")


def test_the_same_run_draws_the_same_bytes(results):
    again = run_all(ROOT, FOLDER, cache=False)
    assert {p: r.graph for p, r in again.runs.items()} == {p: r.graph for p, r in results.runs.items()}


def site_examples_with_facts() -> list[str]:
    return [p for p in discover(ROOT) if options((ROOT / p).read_text(encoding="utf-8")).get("figure")]


RECORDED = site_examples_with_facts() + [f"{FOLDER}/{n}.py" for n in ("gradients", "custom", "saved_hooks")]


@pytest.fixture(scope="module")
def with_and_without_recording(tmp_path_factory) -> dict[str, tuple[str, str]]:
    """Each of ``RECORDED``'s outputs as it is, and with its option line blanked (same line
    numbers), all run in one go: ``path -> (recorded, plain)``."""
    root = tmp_path_factory.mktemp("recording")
    copies = {}
    for number, path in enumerate(RECORDED):
        source = (ROOT / path).read_text(encoding="utf-8")
        plain = "\n".join("#" if line.startswith("# docexec: figure=") else line for line in source.split("\n"))
        name = Path(path).name
        copies[path] = (f"snippets/recorded{number}/{name}", f"snippets/plain{number}/{name}")
        for copy, text in zip(copies[path], (source, plain), strict=True):
            (root / copy).parent.mkdir(parents=True)
            (root / copy).write_text(text, encoding="utf-8")
    found = run_all(root, cache=False).runs
    return {path: (found[recorded].output, found[plain].output) for path, (recorded, plain) in copies.items()}


@pytest.mark.slow
@pytest.mark.parametrize("path", RECORDED)
def test_recording_changes_nothing_an_example_prints_or_computes(with_and_without_recording, path):
    """Every example whose figure records facts prints the same (its claims, gradients included)
    with the recording and without it."""
    recorded, plain = with_and_without_recording[path]
    assert recorded == plain and plain


def test_every_box_of_a_figure_says_what_it_is_on_hover(results):
    import re

    svg = figures.Drawings().svg(results.runs[f"{FOLDER}/gradients.py"].graph.dot)
    boxes = re.findall(r'<g id="[^"]*node\d+" class="node [^"]*" data-dot="[^"]*">\n(<title>)?', svg)
    assert len(boxes) == 8 and all(boxes), "a box without its tooltip"
    titles = svg.split("<title>")[1:]
    assert any(t.startswith("MulBackward0: the backward of a multiplication") for t in titles)
    assert any(t.startswith("x: a leaf tensor that requires grad") for t in titles)
    assert "<a " not in svg and "xlink:title" not in svg
    # each box and arrow keeps its DOT name, which the step-through reads the graph from
    assert re.search(r'<g id="[^"]*edge\d+" class="edge flow[^"]*" data-dot="n\d+&#45;&gt;n\d+">', svg)


def test_the_text_alternative_and_the_caption_say_the_facts(results):
    result = results.runs[f"{FOLDER}/gradients.py"]
    assert "backward ran SumBackward0, MulBackward0, AccumulateGrad, AccumulateGrad" in result.graph.alt
    assert "x.grad = [3, 3]" in result.graph.alt
    assert "order the Nodes ran in" in result.graph.caption and "<code>gradients.py</code>" in result.graph.caption


def test_a_figure_option_names_what_it_may_be(tmp_path):
    (tmp_path / "snippets/f").mkdir(parents=True)
    (tmp_path / "snippets/f/bad.py").write_text("# docexec: figure=gradient\nprint(1)  # 1\n")
    (problem,) = run_all(tmp_path).problems()
    assert str(problem) == ("snippets/f/bad.py:1: docexec option figure takes gradients, saved, versions, hooks, "
                            "cuts, tangents (several joined with '+', each once), or none; got 'gradient'")
    (tmp_path / "snippets/f/bad.py").write_text("# docexec: figure=tangents+gradients\nprint(1)  # 1\n")
    (problem,) = run_all(tmp_path).problems()
    assert str(problem) == ("snippets/f/bad.py:1: docexec option figure=tangents draws forward mode, not the graph: "
                            "it joins with no other kind; got 'tangents+gradients'")


def test_a_forward_mode_figure_counts_every_operation_where_it_stops_drawing(tmp_path):
    """A loop of more operations than a figure draws: the caption counts them all and says how many
    are drawn; an example with no dual tensor gets no figure."""
    source = ("# docexec: figure=tangents\nimport torch\nimport torch.autograd.forward_ad as fwAD\n"
              "with fwAD.dual_level():\n    y = fwAD.make_dual(torch.ones(2), torch.ones(2))\n"
              "    for _ in range(59):\n        y = y * 1.5\nprint(y.shape)  # torch.Size([2])\n")
    write_snippets(tmp_path, {"snippets/f/long.py": source,
                              "snippets/f/plain.py": "# docexec: figure=tangents\nimport torch\nx = torch.ones(2)\n"})
    results = run_all(tmp_path)
    long = results.runs["snippets/f/long.py"].graph
    assert "forward mode had run 60 operations that made dual tensors, of which the first 40 are drawn" in long.caption
    assert long.dot.count("step ") == 40
    assert results.runs["snippets/f/plain.py"].ok and results.runs["snippets/f/plain.py"].graph is None


def test_a_forward_mode_figure_draws_the_inputs_a_function_takes_in_a_list(tmp_path):
    """``torch.stack([a, b])`` takes its tensors in a list: both are drawn as its inputs, each with an
    arrow to the result."""
    source = ("# docexec: figure=tangents\nimport torch\nimport torch.autograd.forward_ad as fwAD\n"
              "with fwAD.dual_level():\n    a = fwAD.make_dual(torch.ones(2), torch.ones(2))\n"
              "    b = a * 2\n    c = torch.stack([a, b])\n    print(c.shape)  # torch.Size([2, 2])\n")
    write_snippets(tmp_path, {"snippets/f/stacked.py": source})
    dot = run_all(tmp_path).runs["snippets/f/stacked.py"].graph.dot
    stack = re.search(r'^  (\w+) \[label="[^"]*stack of a, b', dot, re.M)
    assert stack, dot
    assert len(re.findall(rf"^  \w+ -> {stack.group(1)}\b", dot, re.M)) == 2, dot


def test_an_example_that_asks_for_no_figure_gets_none_and_records_nothing(tmp_path):
    """``figure=none``: no graph is drawn from the tensors the example leaves, and no fact recorded."""
    source = ("import torch\nw = torch.ones(2, requires_grad=True)\n(w * 3).sum().backward()\n"
              "print(w.grad)  # tensor([3., 3.])\n")
    write_snippets(tmp_path, {"snippets/f/drawn.py": source, "snippets/f/plain.py": "# docexec: figure=none\n" + source,
                              "snippets/f/mixed.py": "# docexec: figure=none+saved\n" + source})
    results = run_all(tmp_path)
    assert results.runs["snippets/f/drawn.py"].graph.dot  # the same code, without the option, has its figure
    assert results.runs["snippets/f/plain.py"].ok and results.runs["snippets/f/plain.py"].graph is None
    assert [p.path for p in results.problems()] == ["snippets/f/mixed.py"]  # none stands alone


def test_an_example_draws_the_tensors_its_draw_option_names_under_those_names(tmp_path):
    """``draw=``: the figure starts from the named globals and attribute paths only, labelled so; a
    name that holds no tensor at the end is the example's failure, at the option's line."""
    source = ("import torch\nlayer = torch.nn.Linear(2, 1)\nx = torch.ones(2)\nloss = layer(x).sum()\n"
              "loss.backward()\nother = x.exp()\nprint(layer.bias.grad)  # tensor([1.])\n")
    raising = "class Box:\n    @property\n    def bad(self):\n        raise ValueError('boom')\nbox = Box()\n"
    write_snippets(tmp_path, {"snippets/f/chosen.py": "# docexec: draw=layer.weight+loss\n" + source,
                              "snippets/f/all.py": source,
                              "snippets/f/wrong.py": "import torch\n# docexec: draw=loss+layer.wieght\n" + source,
                              "snippets/f/module.py": "# docexec: draw=layer\n" + source,
                              "snippets/f/twice.py": "# docexec: draw=x+same\n" + source + "same = x\n",
                              "snippets/f/raising.py": "# docexec: draw=box.bad\n" + source + raising,
                              "snippets/f/none.py": "# docexec: draw=x.grad\n" + source})
    results = run_all(tmp_path)
    chosen, every = results.runs["snippets/f/chosen.py"].graph.dot, results.runs["snippets/f/all.py"].graph.dot
    boxes = {name: re.findall(r'^  t\d+ \[label="([^"\\]*)', dot, re.M)
             for name, dot in (("chosen", chosen), ("every", every))}
    assert boxes["chosen"] == ["layer.weight", "loss"]
    assert "other" in boxes["every"] and "layer.weight" not in boxes["every"]  # without the option: the globals
    assert "of layer.bias, (1,)" in chosen  # the parameter not drawn, named by its module path
    assert [str(p) for p in results.problems()] == [
        "snippets/f/module.py:1: the figure draws layer (option draw), which is a Linear, not a tensor "
        "when the example ends",
        "snippets/f/none.py:1: the figure draws x.grad (option draw), which is None when the example ends",
        "snippets/f/raising.py:1: the figure draws box.bad (option draw), and reading .bad raised ValueError: boom",
        "snippets/f/twice.py:1: the figure draws same (option draw), which is the tensor x names too: give one name",
        "snippets/f/wrong.py:2: the figure draws layer.wieght (option draw), which is nothing when the "
        "example ends"]


def test_the_key_shows_every_kind_of_box_and_mark():
    dot = teach.legend_dot()
    for mark in ("tensor-leaf", "tensor-nonleaf", "tensor-nograd", "accumulate", "backward", "peripheries=2",
                 "#dc2626", "gradient sent back", "step ②"):
        assert mark in dot


def test_a_caption_counts_the_nodes_and_says_so_when_there_are_none():
    import torch

    p = torch.ones(2, requires_grad=True)
    alone = teach.caption("snippets/c/none.py", {"p": p}, None)
    assert alone == ("At the end of <code>none.py</code>, no Node stands behind its tensors, only the leaf "
                     "<code>p</code>.")
    q = p * 2
    loss = torch.ones(1, requires_grad=True)  # a leaf the graph does not reach
    assert teach.caption("snippets/c/one.py", {"p": p, "q": q, "loss": loss}, None) == (
        "At the end of <code>one.py</code>, 2 Nodes stand behind its tensors, from the leaf <code>p</code>. "
        "Not in the graph: the leaf <code>loss</code>. Arrows follow the forward pass; <code>backward()</code> "
        "walks them in reverse.")


def test_a_caption_counts_every_node_where_the_drawing_stops():
    import torch

    from docexec.graphs import graph

    x = torch.ones(1, requires_grad=True)
    y = x
    for _ in range(10_000):
        y = y * 1.0
    words = teach.caption("snippets/c/long.py", {"x": x, "y": y}, None)
    assert words.startswith("At the end of <code>long.py</code>, 10,001 Nodes stand behind its tensors, from the "
                            f"leaf <code>x</code>, of which the first {graph.MAX_NODES} are drawn.")


def test_an_accumulategrad_whose_leaf_is_not_drawn_says_the_shape_of_its_leaf():
    import torch

    layer = torch.nn.Linear(2, 3)
    out = layer(torch.ones(1, 2))
    lines = [note.get("lines", []) for note in teach.notes({"out": out}, None).values()]
    said = sorted(line for found in lines for line in found if line.startswith("of a leaf not drawn"))
    assert said == ["of a leaf not drawn, (3, 2)", "of a leaf not drawn, (3,)"]
    named = teach.notes({"weight": layer.weight, "bias": layer.bias, "out": out}, None)
    assert not any("not drawn" in line for note in named.values() for line in note.get("lines", []))


def test_an_accumulategrad_of_a_modules_parameter_says_its_path():
    """A parameter the example reaches only through a module is named as the reader would write
    it (``model[0].weight``, ``blocks['enc'].weight``), with its shape; a module bound to ``_name``
    names nothing."""
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
    out = model(torch.ones(1, 2))
    paths = teach.parameter_names({"model": model, "_hidden": torch.nn.Linear(1, 1), "out": out})
    assert sorted(paths.values()) == ["model[0].bias", "model[0].weight"]
    lines = [note.get("lines", []) for note in teach.notes({"out": out}, None, paths).values()]
    said = sorted(line for found in lines for line in found if line.startswith("of "))
    assert said == ["of model[0].bias, (3,)", "of model[0].weight, (3, 2)"]
    blocks = torch.nn.ModuleDict({"enc": torch.nn.Linear(1, 1)})
    compiled = torch.compile(torch.nn.Linear(1, 1), backend="eager")
    paths = teach.parameter_names({"blocks": blocks, "compiled": compiled})
    written = sorted(paths.values())
    assert written == ["blocks['enc'].bias", "blocks['enc'].weight", "compiled.bias", "compiled.weight"]
    assert eval(written[0], {"blocks": blocks}) is blocks["enc"].bias  # the expression reaches it


def test_two_arrows_between_the_same_nodes_each_carry_the_gradient_sent_along_it(tmp_path):
    """``torch.cat([x, x])``: CatBackward0 sends a different slice of its gradient along each of
    its two edges to x's AccumulateGrad; each drawn arrow carries its own."""
    write_snippets(tmp_path, {"snippets/d/twice.py": """
        # docexec: figure=gradients
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = torch.cat([x, x]) * torch.tensor([1.0, 2.0, 3.0, 4.0])
        y.sum().backward()
        print(x.grad)  # tensor([4., 6.])
        """})
    run = run_all(tmp_path, cache=False).runs["snippets/d/twice.py"]
    assert run.ok, run.failure
    arrows = re.findall(r'^  (n\d+ -> n\d+) \[.*label=" ([^"]*)"', run.graph.dot, re.M)
    pairs = [pair for pair, _ in arrows]
    twice = sorted(label for pair, label in arrows if pairs.count(pair) == 2)
    assert twice == ["[1, 2]", "[3, 4]"]


def test_a_hook_that_is_a_method_is_named_for_its_kind_and_a_refused_one_is_not_drawn(tmp_path):
    """A Node's prehook and hook given as bound methods are told apart by what the engine passes
    them (one tuple of gradients, or two), not by their count of parameters, which ``self``
    raises by one; a ``register_hook`` that raised (the tensor requires no gradient) added no hook."""
    write_snippets(tmp_path, {"snippets/d/methods.py": """
        # docexec: figure=hooks+gradients
        import torch


        class Watch:
            def before(self, grad_outputs):
                return None

            def after(self, grad_inputs, grad_outputs):
                return None


        watch = Watch()
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        plain = torch.ones(2)
        try:
            plain.register_hook(lambda grad: grad)
        except RuntimeError:
            pass
        y = (x * plain).sum()
        y.grad_fn.register_prehook(watch.before)
        y.grad_fn.register_hook(watch.after)
        y.backward()
        print(x.grad)  # tensor([1., 1.])
        """})
    run = run_all(tmp_path, cache=False).runs["snippets/d/methods.py"]
    assert run.ok, run.failure
    assert "prehook before(): returned None" in run.graph.dot
    assert "hook after(): returned None" in run.graph.dot.replace("prehook after", "")
    assert run.graph.dot.count("returned") == 2, run.graph.dot  # no hook on plain


def test_a_hooks_kind_is_what_the_engine_passed_whatever_its_parameters(tmp_path):
    """A prehook with a tuple as a default, and methods whose first parameter is not called self (of
    a namedtuple subclass, whose self is a tuple; a classmethod), are each named for what the engine
    passed them: one tuple of gradients (a prehook) or two (a hook)."""
    write_snippets(tmp_path, {"snippets/d/kinds.py": """
        # docexec: figure=hooks+gradients
        import collections

        import torch


        def scaled(grad_outputs, scale=(1.0, 2.0)):
            return None


        class Pair(collections.namedtuple("Pair", "a b")):
            def watch(this, grad_inputs, grad_outputs):
                return None


        class Log:
            @classmethod
            def before(cls, grad_outputs):
                return None


        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y.sum()
        z.grad_fn.register_prehook(scaled)
        z.grad_fn.register_hook(Pair(1, 2).watch)
        y.grad_fn.register_prehook(Log.before)
        z.backward()
        print(x.grad)  # tensor([3., 3.])
        """})
    run = run_all(tmp_path, cache=False).runs["snippets/d/kinds.py"]
    assert run.ok, run.failure
    for line in ("prehook scaled(): returned None", "hook watch(): returned None", "prehook before(): returned None"):
        assert line in run.graph.dot, run.graph.dot
    assert "hooks: " not in run.graph.dot  # every hook accounted for by what it returned


def test_a_hook_the_run_cannot_tell_apart_is_still_counted_on_its_box(tmp_path):
    """A prehook given as ``functools.partial`` runs with no frame of its own to be seen by: the
    box that names what its hook returned also says how many hooks of each kind it has."""
    write_snippets(tmp_path, {"snippets/d/partial.py": """
        # docexec: figure=hooks+gradients
        import functools

        import torch


        def before(tag, grad_outputs):
            return None


        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = (x * 3).sum()
        y.grad_fn.register_prehook(functools.partial(before, "t"))
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: None)
        y.backward()
        print(x.grad)  # tensor([3., 3.])
        """})
    run = run_all(tmp_path, cache=False).runs["snippets/d/partial.py"]
    assert run.ok, run.failure
    label = re.search(r'label="SumBackward0[^"]*"', run.graph.dot).group(0)
    assert "hook (a lambda): returned None" in label and "hooks: hook ×1, prehook ×1" in label, label


def test_a_pass_a_hook_starts_leaves_the_record_of_the_outer_pass_whole(tmp_path):
    """A tensor hook that runs a backward pass of its own (``torch.autograd.grad`` on another graph)
    neither clears the steps the outer pass had made nor adds its Nodes' steps: the figure numbers
    the outer pass's Nodes ①, ②, ③, as they ran."""
    write_snippets(tmp_path, {"snippets/d/nested.py": """
        # docexec: figure=hooks+gradients
        import torch

        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = y.sum()


        def inner(grad):
            w = torch.tensor(2.0, requires_grad=True)
            with torch.enable_grad():
                (dw,) = torch.autograd.grad(w * w, w)
            return grad * dw


        y.register_hook(inner)
        z.backward()
        print(x.grad)  # tensor([12., 12.])
        """})
    run = run_all(tmp_path, cache=False).runs["snippets/d/nested.py"]
    assert run.ok, run.failure
    steps = re.findall(r'label="(\w+)\\nstep (.)', run.graph.dot)
    assert sorted(steps, key=lambda step: step[1]) == [
        ("SumBackward0", "①"), ("MulBackward0", "②"), ("AccumulateGrad", "③")], run.graph.dot
    assert "hook inner(): returned [4, 4]" in run.graph.dot


def test_a_hook_the_recorder_passes_on_keeps_its_name(tmp_path):
    """What an example reads of a tensor hook it registered (``y._backward_hooks``) names its own
    function, while the recorder notes what it returns."""
    write_snippets(tmp_path, {"snippets/d/named.py": """
        # docexec: figure=hooks+gradients
        import torch

        y = torch.tensor([1.0, 2.0], requires_grad=True) * 3
        y.register_hook(lambda grad: grad * 2)
        print(list(y._backward_hooks.values())[0].__name__)  # <lambda>
        y.sum().backward()
        """})
    results = run_all(tmp_path, cache=False)
    run = results.runs["snippets/d/named.py"]
    assert [p for p in results.problems() if p.line] == [] and run.output == "<lambda>\n"
    assert "hook (a lambda): returned [2, 2]" in run.graph.dot


def test_a_figure_names_only_the_examples_own_hooks(results):
    """What the engine calls from its frame that is no hook of the example's (a custom Function's
    backward, logging asked for its level, the example's unpack hook of saved_tensors_hooks) is not
    drawn as one; the example's prehook is."""
    result = results.runs[f"{FOLDER}/saved_hooks.py"]
    assert result.ok, result.failure
    assert "prehook (a lambda): returned None" in result.graph.dot
    for not_a_hook in ("apply()", "getEffectiveLevel", "unpack()"):  # a Function's backward, logging, unpacking
        assert not_a_hook not in result.graph.dot + result.graph.alt
