"""``make check``: every example run and its claims checked, without building the site."""

from __future__ import annotations

from pathlib import Path

from docexec.core.problems import Problem
from docexec.pages import quoted
from docexec.run.runner import Runner
from docexec.source.config import include_paths
from docexec.source.includes import read_pages
from docexec.source.snippets import SNIPPETS_DIR
from docexec.versions import drift


def prose(runner: Runner, docs_dir: str = "docs") -> tuple[list[Problem], list[Problem]]:
    """What is wrong with the values the pages' prose quotes (``docexec.pages.quoted.problems``),
    and every value it writes by hand that an example of the same page printed
    (``docexec.pages.quoted.restatements``), from the runs of ``runner`` (waited for)."""
    root = Path(runner.root)
    results = runner.wait()
    problems, by_hand = [], []
    for page in read_pages(root, include_paths(root), runner.folder, docs_dir):
        problems += page.problems + quoted.problems(page, results)
        by_hand += quoted.restatements(page, results)
    return problems, by_hand


def check(runner: Runner, paths: list[str]) -> tuple[list[Problem], Problem | None]:
    """Run ``paths`` and return every problem found, and why the drift record is not shown (if so:
    reported, not counted; it is not shown, nothing else)."""
    runner.start(paths)
    problems = runner.wait().problems()
    try:
        drift.current(Path(runner.root), SNIPPETS_DIR)
    except drift.RecordNotShownError as refused:
        return problems, refused.problem
    return problems, None
