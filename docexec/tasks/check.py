"""``make check``: every example run and its claims checked, without building the site."""

from __future__ import annotations

from pathlib import Path

from docexec.core.problems import Problem
from docexec.run.runner import Runner
from docexec.source.snippets import SNIPPETS_DIR
from docexec.versions import drift


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
