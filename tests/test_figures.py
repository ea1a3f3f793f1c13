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
