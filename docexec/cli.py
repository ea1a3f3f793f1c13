"""``python -m docexec check`` and ``python -m docexec fix`` (what ``make fix`` calls).

``check`` runs every snippet and prints each problem as ``path:line: reason``; exit status 1 when
there is any. ``fix`` runs every snippet and rewrites its stale or missing claims in place, printing
each change; it never writes to a snippet that does not parse or that failed to run, and a second
run changes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import claims, figures
from .files import write_atomically
from .session import Session, run_problem
from .snippets import SNIPPETS_DIR, discover


def _show(lines: list[str] | None) -> str:
    if lines is None:
        return "(no claim)"
    return " | ".join(lines) if len(lines) <= 3 else " | ".join(lines[:3]) + f" | … ({len(lines)} lines)"


def fix(session: Session, paths: list[str], out=sys.stdout) -> int:
    """Rewrite stale claims of ``paths``; returns the number of snippets left with problems."""
    session.run(paths)
    left = 0
    for path in paths:
        result = session.results[path]
        source = session.source(path)
        if not result.ok:
            print(f"{run_problem(result)} (claims not rewritten: the snippet must run first)", file=out)
            left += 1
            continue
        try:
            new_source, changes = claims.rewrite(source, result.prints)
        except claims.ClaimSyntaxError as exc:
            print(f"{path}:{exc.line}: {exc} (file left untouched)", file=out)
            left += 1
            continue
        if new_source != source:
            write_atomically(session.root / path, new_source)
        for change in changes:
            print(f"{path}:{change.line}: {_show(change.before)}  =>  {_show(change.after)}", file=out)
        remaining = claims.check(path, new_source, claims.remap_prints(source, new_source, result.prints))
        for problem in remaining:
            print(str(problem), file=out)
        left += bool(remaining)
    if all(r.ok for r in session.results.values()):
        for change in figures.sync(session.root, session.graphs(), set(session.results), session.folder):
            print(change, file=out)
    return left


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docexec", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "fix"])
    parser.add_argument("paths", nargs="*", help="snippet files (default: every snippet)")
    parser.add_argument("--root", default=".", help="repository root (default: current directory)")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    session = Session(root, SNIPPETS_DIR)
    paths = []
    for given in args.paths:
        path = Path(given).resolve()
        if not path.is_file():
            print(f"{given}: no such file", file=sys.stderr)
            return 2
        if not path.is_relative_to(root):
            print(f"{given}: not inside the repository {root}", file=sys.stderr)
            return 2
        paths.append(path.relative_to(root).as_posix())
    paths = paths or discover(root)
    if args.command == "fix":
        left = fix(session, paths)
        print(f"docexec fix: {len(paths)} snippet(s) checked, {left} still with problems")
        return 1 if left else 0
    session.run(paths)
    problems = session.problems()
    for problem in problems:
        print(problem)
        if problem.detail:
            print("    " + problem.detail.replace("\n", "\n    "))
    print(f"docexec check: {len(paths)} snippet(s), {len(problems)} problem(s)")
    return 1 if problems else 0
