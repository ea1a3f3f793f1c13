"""The private APIs docexec uses are those of the versions installed, and a different version is
named in one line."""

from __future__ import annotations

from importlib import metadata

import pytest

from docexec.core import compat


@pytest.mark.parametrize("package", sorted(compat.WRITTEN_FOR))
def test_the_installed_versions_are_those_compat_was_written_for(package):
    assert metadata.version(package) == compat.WRITTEN_FOR[package]
    assert compat.version_problem(package) is None


def test_another_version_is_named_in_one_line(monkeypatch):
    monkeypatch.setitem(compat.WRITTEN_FOR, "mkdocs", "0.0.1")
    problem = compat.version_problem("mkdocs")
    assert problem is not None and "\n" not in problem
    assert "mkdocs 0.0.1" in problem and metadata.version("mkdocs") in problem and "compat.py" in problem


def test_this_python_has_what_the_worker_uses():
    assert compat.missing_from_python() == []


def test_a_page_rendered_with_a_function_of_ours_can_still_render_as_usual():
    calls = []

    class Page:
        _title_from_render = None

        def render(self, config, files):
            calls.append(("class", config, files))

    page = Page()
    compat.render_page_with(page, lambda config, files: calls.append("ours"))
    page.render(None, None)
    compat.render_page_as_usual(page, None, None)
    compat.set_page_title(page, "Title")
    assert calls == ["ours", ("class", None, None)] and compat.page_title(page) == "Title"
