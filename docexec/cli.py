"""``python -m docexec check|fix|notebooks|drift|upgrade`` (what the ``make`` targets of those names call).

``check`` runs every snippet and prints each problem as ``path:line: reason``; exit status 1 when
there is any. ``fix`` runs every snippet and rewrites its stale or missing claims in place, printing
each change; it never writes to a snippet that does not parse or that failed to run, and a second
run changes nothing. ``notebooks`` writes each chapter's notebook into a folder. ``drift`` runs
every snippet on another PyTorch too and reports what would change (``docexec.versions.drift``); ``upgrade``
moves the pin to another PyTorch (``docexec.tasks.upgrade``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from docexec.run.execute import ExecutionError
from docexec.run.runner import Runner
from docexec.source.snippets import SNIPPETS_DIR, discover
from docexec.tasks import upgrade
from docexec.tasks.check import check, prose
from docexec.tasks.drift_report import drift_report
from docexec.tasks.export import write_notebooks
from docexec.tasks.fix import fix
from docexec.versions import drift, sideenv


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docexec", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "fix", "notebooks", "drift", "upgrade"])
    parser.add_argument("paths", nargs="*", help="snippet files (default: every snippet); for notebooks: "
                                                 "the folder to write them to (default: site/notebooks)")
    parser.add_argument("--root", default=".", help="repository root (default: current directory)")
    parser.add_argument("--torch", help="drift, upgrade: the other PyTorch version (its environment is made under "
                                        f"{sideenv.DRIFT_DIR}/ if missing)")
    parser.add_argument("--python", help="drift, upgrade: run the other version with this interpreter instead")
    parser.add_argument("--no-record", action="store_true", help=f"drift: do not write {drift.RECORD}")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.command in ("drift", "upgrade"):
        return _other_torch(args, root)
    if args.command == "notebooks":
        out = Path(args.paths[0] if args.paths else "site/notebooks")
        return 1 if write_notebooks(Runner(root, SNIPPETS_DIR), out) else 0
    runner = Runner(root, SNIPPETS_DIR, cache=os.environ.get("DOCEXEC_CACHE", "1") != "0")
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
        left = fix(runner, paths)
        print(f"docexec fix: {len(paths)} snippet(s) checked, {left} still with problems")
        return 1 if left else 0
    return _check(runner, paths, whole=not args.paths)


def _check(runner: Runner, paths: list[str], whole: bool) -> int:
    """``check``: print every problem, for the whole course those of the pages' prose too (quotes
    that name no value, printed values typed by hand)."""
    problems, not_shown = check(runner, paths)
    if whole:
        wrong_quotes, by_hand = prose(runner)
        problems += wrong_quotes + by_hand
    if not_shown is not None:
        print(not_shown)
    for problem in problems:
        print(problem)
        if problem.detail:
            print("    " + problem.detail.replace("\n", "\n    "))
    print(f"docexec check: {len(paths)} snippet(s), {len(problems)} problem(s)")
    return 1 if problems else 0


def _other_torch(args: argparse.Namespace, root: Path) -> int:
    """``drift`` and ``upgrade``: check their arguments, run them, turn a worker failure into one line."""
    if args.torch is None and (args.command == "upgrade" or args.python is None):
        print(f"docexec {args.command}: say which PyTorch: make {args.command} TORCH=<version> (such as 2.14.1)",
              file=sys.stderr)
        return 2
    if args.command == "drift":
        return drift_report(root, args.torch, args.python, not args.no_record)
    try:
        return upgrade.upgrade(root, args.torch, args.python)
    except ExecutionError as exc:
        print(f"docexec upgrade: the examples could not be run on PyTorch {args.torch}: {exc}; no file was changed",
              file=sys.stderr)
        return 2
