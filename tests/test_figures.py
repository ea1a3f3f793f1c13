"""Drawing figures with Graphviz's dot: looked up once per build (``Drawings``), drawn in batches."""

import pytest

from docexec.graphs import figures


def test_dot_is_looked_up_once_per_build(monkeypatch, tmp_path):
    first = figures.Drawings(tmp_path).svg("digraph { a -> b }", "t")
    assert first.startswith("<svg") and 'id="t-' in first
    empty = tmp_path / "bin"
    empty.mkdir()
    drawings = figures.Drawings(tmp_path)
    drawings.program  # noqa: B018 - looked up as the build starts
    monkeypatch.setenv("PATH", str(empty))  # Graphviz "removed" while the build runs
    # Within a build the dot found first is used: the figure drawn already is served, unchanged.
    assert drawings.svg("digraph { a -> b }", "t") == first
    with pytest.raises(figures.GraphvizError, match="apt-get install -y graphviz"):
        figures.Drawings(tmp_path).svg("digraph { c -> d }", "t")  # a new build notices the removal
    monkeypatch.undo()  # Graphviz "installed" again, under a server still running
    assert "<svg" in figures.Drawings(tmp_path).svg("digraph { c -> d }", "t")


def _generated_sources() -> list[str]:
    from .conftest import ROOT

    sources = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "diagrams").rglob("*.dot"))]
    return [text for text in sources if figures.generated_by(text) and figures._batchable(text)]


def test_a_batch_draws_every_diagram_exactly_as_it_is_drawn_alone():
    sources = _generated_sources()
    assert len(sources) > 20
    program = figures.find_dot()
    alone = [figures._draw(program, dot) for dot in sources]
    for order in (sources, sources[::-1], sources[1::2] + sources[::2]):
        documents = figures._draw_batch(program, order)
        assert documents is not None
        assert documents == [alone[sources.index(dot)] for dot in order]


def test_a_batch_with_a_broken_source_falls_back_to_naming_its_error(tmp_path):
    good = "digraph { good_one -> good_two }"
    with pytest.raises(figures.GraphvizError, match="dot could not draw the graph: .*syntax error"):
        figures.Drawings(tmp_path).draw_many([good, "digraph { a -> }", "digraph { x -> y }"], jobs=1)
    assert "good_one" in figures.Drawings(tmp_path).svg(good, "t")  # drawn and stored all the same
    assert len(list(tmp_path.glob("*.svg"))) == 2


def test_sources_a_batch_could_mix_up_are_drawn_alone(tmp_path):
    two = "digraph A { two_first }\ndigraph B { two_second }"
    comment_only = "// no graph at all\n"
    gradient = 'digraph G { n [style=filled fillcolor="red:blue"] }'
    assert [figures._batchable(d) for d in (two, comment_only, gradient, "digraph autograd { a }")] == \
        [None, None, None, "autograd"]
    drawings = figures.Drawings(tmp_path)
    with pytest.raises(figures.GraphvizError, match="dot drew [02] graphs from one source"):
        drawings.draw_many(["digraph solo { solo }", two, comment_only], jobs=1)
    stored = tmp_path / f"{drawings.key(comment_only)}.svg"
    assert not stored.exists() or "two_second" not in stored.read_text()


def test_prune_keeps_the_drawings_in_use_and_removes_the_others(tmp_path):
    import os

    used, unused = (f'digraph {{ "{tmp_path}" -> {name} }}' for name in ("used", "unused"))
    drawings = figures.Drawings(tmp_path)
    drawings.draw_many([used, unused])
    assert len(list(tmp_path.glob("*.svg"))) == 2
    old_tmp, young_tmp = tmp_path / ".x.svg.1.2.tmp", tmp_path / ".y.svg.1.2.tmp"
    old_tmp.write_text("<svg")
    young_tmp.write_text("<svg")
    os.utime(old_tmp, (0, 0))  # left by a process that died long ago
    assert drawings.prune([used]) == 2
    (kept,) = tmp_path.glob("*.svg")
    assert kept.name == f"{drawings.key(used)}.svg"
    assert young_tmp.exists() and not old_tmp.exists()


def test_a_build_keeps_its_drawings_for_that_build_only(tmp_path):
    """The memory a build's drawings take goes with the build: a new ``Drawings`` starts empty."""
    drawings = figures.Drawings(None)
    drawings.svg("digraph { kept -> here }")
    assert len(drawings._svg) == 1 and figures.Drawings(None)._svg == {}


@pytest.mark.parametrize("damage", [lambda text: text.replace(">gradient<", ">edited<"),
                                    lambda text: text[: len(text) // 2]])
def test_a_stored_drawing_changed_by_hand_or_cut_short_is_drawn_again(tmp_path, damage):
    """A drawing in the cache carries the SHA-256 of its SVG: an edited label, or a file cut short,
    no longer matches it, and the next build draws the figure again instead of showing it."""
    dot = 'digraph { a [label="gradient"] }'
    first = figures.Drawings(tmp_path).svg(dot, "t")
    stored = next(tmp_path.glob("*.svg"))
    stored.write_text(damage(stored.read_text(encoding="utf-8")), encoding="utf-8")
    again = figures.Drawings(tmp_path).svg(dot, "t")
    assert again == first and ">gradient<" in again
    assert figures.Drawings(tmp_path).svg(dot, "t") == first  # stored again, whole: served as it is


def test_a_stored_drawing_copied_under_another_name_is_drawn_again(tmp_path):
    """The seal covers the drawing's name (the key of its DOT source) too: one drawing copied over
    another is not shown in its place."""
    first = figures.Drawings(tmp_path).svg('digraph { a [label="first"] }', "t")
    second = figures.Drawings(tmp_path).svg('digraph { b [label="second"] }', "t")
    (of_first,) = [p for p in tmp_path.glob("*.svg") if ">first<" in p.read_text(encoding="utf-8")]
    (of_second,) = [p for p in tmp_path.glob("*.svg") if ">second<" in p.read_text(encoding="utf-8")]
    of_second.write_text(of_first.read_text(encoding="utf-8"), encoding="utf-8")
    assert figures.Drawings(tmp_path).svg('digraph { b [label="second"] }', "t") == second != first
