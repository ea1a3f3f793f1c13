"""Drawing figures with Graphviz's dot: looked up once per build, and again after forget_dot()."""

import pytest

from docexec import figures


def test_dot_is_looked_up_again_after_forget_dot(monkeypatch, tmp_path):
    figures.forget_dot()
    first = figures.render_svg("digraph { a -> b }", "t", tmp_path)
    assert first.startswith("<svg") and 'id="t-' in first
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # Graphviz "removed"
    # Within a build the dot found first is used: the figure drawn already is served, unchanged.
    assert figures.render_svg("digraph { a -> b }", "t", tmp_path) == first
    figures.forget_dot()  # a new build: the removal is noticed
    with pytest.raises(figures.GraphvizError, match="apt-get install -y graphviz"):
        figures.render_svg("digraph { c -> d }", "t", tmp_path)
    monkeypatch.undo()  # Graphviz "installed" again, under a server still running
    figures.forget_dot()
    assert "<svg" in figures.render_svg("digraph { c -> d }", "t", tmp_path)


def _generated_sources() -> list[str]:
    from .conftest import ROOT

    sources = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "diagrams").rglob("*.dot"))]
    return [text for text in sources if figures.generated_by(text) and figures._batchable(text)]


def test_a_batch_draws_every_diagram_exactly_as_it_is_drawn_alone():
    sources = _generated_sources()
    assert len(sources) > 20
    program = figures.dot_program()
    alone = [figures._draw(program, dot) for dot in sources]
    for order in (sources, sources[::-1], sources[1::2] + sources[::2]):
        documents = figures._draw_batch(program, order)
        assert documents is not None
        assert documents == [alone[sources.index(dot)] for dot in order]


def test_a_batch_with_a_broken_source_falls_back_to_naming_its_error(tmp_path):
    figures.forget_dot()
    good = "digraph { good_one -> good_two }"
    with pytest.raises(figures.GraphvizError, match="dot could not draw the graph: .*syntax error"):
        figures.render_many([good, "digraph { a -> }", "digraph { x -> y }"], cache_dir=tmp_path, jobs=1)
    assert "good_one" in figures.render_svg(good, "t", tmp_path)  # drawn and cached all the same
    assert len(list(tmp_path.glob("*.svg"))) == 2


def test_sources_a_batch_could_mix_up_are_drawn_alone(tmp_path):
    figures.forget_dot()
    two = "digraph A { two_first }\ndigraph B { two_second }"
    comment_only = "// no graph at all\n"
    gradient = 'digraph G { n [style=filled fillcolor="red:blue"] }'
    assert [figures._batchable(d) for d in (two, comment_only, gradient, "digraph autograd { a }")] == \
        [None, None, None, "autograd"]
    with pytest.raises(figures.GraphvizError, match="dot drew [02] graphs from one source"):
        figures.render_many(["digraph solo { solo }", two, comment_only], cache_dir=tmp_path, jobs=1)
    program = figures.dot_program()
    stored = tmp_path / f"{figures._key(program, comment_only)}.svg"
    assert not stored.exists() or "two_second" not in stored.read_text()


def test_prune_keeps_the_drawings_in_use_and_removes_the_others(tmp_path):
    import os

    # sources no other test draws: a drawing kept in memory would not be written to this folder
    used, unused = (f'digraph {{ "{tmp_path}" -> {name} }}' for name in ("used", "unused"))
    figures.render_many([used, unused], cache_dir=tmp_path)
    assert len(list(tmp_path.glob("*.svg"))) == 2
    old_tmp, young_tmp = tmp_path / ".x.svg.1.2.tmp", tmp_path / ".y.svg.1.2.tmp"
    old_tmp.write_text("<svg")
    young_tmp.write_text("<svg")
    os.utime(old_tmp, (0, 0))  # left by a process that died long ago
    assert figures.prune(tmp_path, [used]) == 2
    (kept,) = tmp_path.glob("*.svg")
    assert kept.name == f"{figures._key(figures.dot_program(), used)}.svg"
    assert young_tmp.exists() and not old_tmp.exists()
