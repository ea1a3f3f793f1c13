"""Graph to DOT: golden files for known graphs, determinism, and what is (not) drawn.

Regenerate the golden files after an intended change with ``UPDATE_GOLDEN=1 make test`` and review
the diff.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from docexec.graphs import graph

from .conftest import ROOT
from .graph_cases import CASES

GOLDEN = ROOT / "tests" / "golden"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_dot_matches_golden_file(case):
    dot = graph.to_dot(case())
    path = GOLDEN / f"{case.__name__}.dot"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(dot, encoding="utf-8")
    assert dot == path.read_text(encoding="utf-8")


def edges(tensors):
    nodes, found = graph.walk(tensors)
    label = {node_id: text.split("\n")[0] for node_id, _, text in nodes}
    return [(label[a], label[b], kind) for a, b, kind in found]


def test_chain_is_drawn_node_by_node():
    assert edges(CASES[0]()) == [
        ("MulBackward0", "y", "join"), ("AddBackward0", "z", "join"), ("AccumulateGrad", "MulBackward0", "flow"),
        ("x", "AccumulateGrad", "join"), ("MulBackward0", "AddBackward0", "flow")]
    assert graph.describe(CASES[0]()) == "x → AccumulateGrad → MulBackward0 (y) → AddBackward0 (z)"


def test_a_tensor_used_twice_has_one_node_and_two_edges():
    nodes, found = graph.walk(CASES[1]())
    assert [text for _, kind, text in nodes if kind == "accumulate"] == ["AccumulateGrad"]
    assert [kind for _, _, kind in found].count("flow") == 2


def test_constants_and_cut_tensors_get_no_node():
    tensors = CASES[4]()  # detach_cut
    nodes, found = graph.walk(tensors)
    # PyTorch recorded nothing: h was cut off from w, and out was computed from h alone.
    assert [kind for _, kind, _ in nodes] == ["tensor-leaf", "tensor-nograd", "tensor-nograd"] and found == []
    assert graph.describe(tensors) == "not in the graph: w, h, out"


def test_no_grad_result_is_a_leaf_outside_the_graph():
    tensors = CASES[5]()
    nodes, _ = graph.walk(tensors)
    z = [text for node_id, kind, text in nodes if text.startswith("z\n")][0]
    assert z.endswith("leaf\nno grad")
    assert graph.describe(tensors).endswith("not in the graph: z")


def test_shared_subgraph_is_drawn_once():
    nodes, _ = graph.walk(CASES[6]())
    names = [text for _, kind, text in nodes if not kind.startswith("tensor")]
    assert sorted(names) == ["AccumulateGrad", "AddBackward0", "ExpBackward0", "MulBackward0"]


def test_dtype_is_shown_only_when_not_float32():
    nodes, _ = graph.walk(CASES[3]())
    assert nodes[0][2] == "m\nshape (2, 3) · float64\nleaf\nrequires grad"
    assert "float" not in graph.walk(CASES[0]())[0][0][2]


def test_long_chains_run_top_to_bottom_and_broad_graphs_left_to_right():
    import torch

    x = torch.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(6):
        y = y * 2
    chain = {"x": x, "y": y}
    assert graph.direction(*graph.walk(chain)) == "TB"
    assert "rankdir=TB" in graph.to_dot(chain)
    loose = {name: torch.ones(1) for name in "abcd"} | chain  # four boxes side by side, no deeper
    loose["y"] = x * 2
    assert graph.direction(*graph.walk(loose)) == "LR"
    assert "rankdir=LR" in graph.to_dot(CASES[4]())  # three tensors cut off from any graph


def test_direction_ends_on_a_graph_with_a_cycle():
    nodes = [("n0", "backward", "a"), ("n1", "backward", "b")]
    assert graph.direction(nodes, [("n0", "n1", "flow"), ("n1", "n0", "flow"), ("n1", "n1", "flow")]) == "TB"


def test_the_source_shown_on_chapter_01_fits_80_columns():
    from docexec.source.snippets import included_text, long_lines

    shown = included_text((ROOT / "docexec/graphs/graph.py").read_text(encoding="utf-8"), "to_dot")
    assert long_lines("docexec/graphs/graph.py", shown) == []


def test_same_snippet_drawn_in_two_processes_gives_identical_bytes():
    code = ("import tests.graph_cases as c, docexec.graphs.graph as g; "
            "print(''.join(g.to_dot(f()) for f in c.CASES), end='')")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True,
                           env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")]
    assert runs[0] == runs[1] and runs[0].count("digraph autograd {") == len(CASES)


def test_named_tensors_keeps_definition_order_and_skips_private_and_aliases():
    import torch

    a = torch.ones(1)
    namespace = {"b": torch.zeros(1), "_hidden": torch.ones(1), "a": a, "alias": a, "n": 3}
    assert list(graph.named_tensors(namespace)) == ["b", "a"]
