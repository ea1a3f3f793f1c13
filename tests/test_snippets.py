"""Every snippet of the site runs and every claim in it holds (one test per snippet)."""

from __future__ import annotations

import pytest

from docexec.run.results import Results, run_problem
from docexec.source import claims
from docexec.source.snippets import discover, long_lines

from .conftest import ROOT, run_all

SNIPPETS = discover(ROOT)


@pytest.fixture(scope="module")
def results(warm_site) -> Results:
    """Every snippet's result, after the session's site build (``warm_site``) filled the run cache:
    a test process that comes here while another builds the site waits for it, rather than running
    all the examples a second time."""
    return run_all(ROOT)


def test_there_are_snippets():
    assert len(SNIPPETS) >= 8


@pytest.mark.parametrize("path", SNIPPETS)
def test_snippet_runs_and_its_claims_hold(results, path):
    result = results.runs[path]
    assert result.ok, f"{run_problem(result)}\n{result.failure.traceback}"
    problems = claims.check(path, results.sources[path], claims.masked(result))
    problems += long_lines(path, results.sources[path])
    assert not problems, "\n".join(map(str, problems))
    assert claims.find_print_sites(results.sources[path]), f"{path} prints nothing for the page to show"


def test_every_snippet_is_included_by_some_page():
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))
    missing = [p for p in SNIPPETS if f'"{p.removeprefix("snippets/")}' not in pages]
    assert not missing, f"snippets no page includes: {missing}"


def test_discover_lists_runnable_snippets_as_paths_relative_to_the_root(tmp_path):
    """Helpers (``_*.py``), ``__pycache__`` and other files are left out; paths have no ``./``."""
    for name in ("ch/a.py", "ch/_helper.py", "ch/__pycache__/a.py", "ch/notes.txt", "ch/deeper/b.py", "top.py"):
        (tmp_path / "snippets" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "snippets" / name).write_text("")
    assert discover(tmp_path) == ["snippets/ch/a.py", "snippets/ch/deeper/b.py", "snippets/top.py"]
    assert discover(tmp_path / "snippets", ".") == ["ch/a.py", "ch/deeper/b.py", "top.py"]
    assert discover(tmp_path, "missing") == []


#: Every page: its prose quotes each value it takes from a run (``{{ example: expression }}``) or
#: says why it stays literal (``<!-- literal: reason -->``).
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("name", PAGES)
def test_a_page_writes_no_printed_value_by_hand(results, name):
    from docexec.pages import quoted
    from docexec.source.config import include_paths
    from docexec.source.includes import parse_page

    page = parse_page((ROOT / name).read_text(encoding="utf-8"), name, str(ROOT), include_paths(ROOT), "snippets")
    assert not page.problems
    assert quoted.problems(page, results) == []
    assert [str(p) for p in quoted.restatements(page, results)] == []
