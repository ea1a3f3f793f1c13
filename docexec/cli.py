"""``python -m docexec check|fix|notebooks`` (what ``make check``, ``make fix`` and ``make notebooks`` call).

``check`` runs every snippet and prints each problem as ``path:line: reason``; exit status 1 when
there is any. ``fix`` runs every snippet and rewrites its stale or missing claims in place, printing
each change; it never writes to a snippet that does not parse or that failed to run, and a second
run changes nothing. ``notebooks`` writes each chapter's notebook into a folder.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import claims, figures
from .files import write_atomically
from .results import run_problem
from .runner import Runner
from .snippets import SNIPPETS_DIR, discover, long_lines


def _show(lines: list[str] | None) -> str:
    if lines is None:
        return "(no claim)"
    return " | ".join(lines) if len(lines) <= 3 else " | ".join(lines[:3]) + f" | … ({len(lines)} lines)"


def fix(runner: Runner, paths: list[str], out=sys.stdout) -> int:
    """Run ``paths``, rewrite their stale or missing claims in place (printing each change), and
    write, update or remove the generated DOT files when every snippet ran.

    Returns:
        The number of snippets left with problems.

    Raises:
        ExecutionError: the worker could not run the snippets.
    """
    runner.start(paths)
    results = runner.wait()
    left = 0
    for path in paths:
        result = results.runs[path]
        source = results.sources[path]
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
            write_atomically(runner.root / path, new_source)
        for change in changes:
            print(f"{path}:{change.line}: {_show(change.before)}  =>  {_show(change.after)}", file=out)
        remaining = claims.check(path, new_source, claims.remap_prints(source, new_source, result.prints))
        remaining += long_lines(path, new_source)  # fix keeps lines within the limit, but not a long code line
        for problem in remaining:
            print(str(problem), file=out)
        left += bool(remaining)
    if all(r.ok for r in results.runs.values()):
        for change in figures.sync(runner.root, results.graphs(), set(results.runs), runner.folder):
            print(change, file=out)
    return left


def include_paths(root: Path) -> list[str]:
    """The folders pages include files from: ``pymdownx.snippets``' ``base_path`` in ``mkdocs.yml``
    (``[snippets]`` without one). Tags such as ``!ENV`` are read as nothing."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda *_: None)
    try:
        config = yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader) or {}
    except OSError:
        return [SNIPPETS_DIR]
    for entry in config.get("markdown_extensions", []):
        if isinstance(entry, dict) and "pymdownx.snippets" in entry:
            paths = (entry["pymdownx.snippets"] or {}).get("base_path", [SNIPPETS_DIR])
            return [paths] if isinstance(paths, str) else list(paths)
    return [SNIPPETS_DIR]


def notebooks(runner: Runner, out: Path, docs: str = "docs") -> int:
    """Write the notebook of every page that shows an example's output to ``out/<page>.ipynb``, the
    same bytes the MkDocs hook serves (for hosts that run no hook, such as Zensical).

    Returns:
        The number of problems (printed), 0 when every notebook was written.
    """
    from . import build as builds
    from .notebooks import chapter_notebook, dumps

    build = builds.Build(runner, include_paths(runner.root), docs)
    runner.start()
    results = runner.wait()
    pages = [build.page(p.read_text(encoding="utf-8-sig"), p.relative_to(runner.root).as_posix())
             for p in sorted((runner.root / docs).rglob("*.md"))]
    problems = [p for page in pages for p in page.problems] + results.problems()
    for problem in problems:
        print(problem)
    if problems:
        return len(problems)
    for page in pages:
        if page.snippets:
            target = out / f"{Path(page.name).stem}.ipynb"
            notebook = chapter_notebook(page, results, build.drawings, os.environ.get("SITE_URL", ""))
            write_atomically(target, dumps(notebook))
            print(f"{target}: written")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m docexec", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["check", "fix", "notebooks"])
    parser.add_argument("paths", nargs="*", help="snippet files (default: every snippet); for notebooks: "
                                                 "the folder to write them to (default: site/notebooks)")
    parser.add_argument("--root", default=".", help="repository root (default: current directory)")
    args = parser.parse_args(argv)
    root = Path(args.root).resolve()
    if args.command == "notebooks":
        out = Path(args.paths[0] if args.paths else "site/notebooks")
        return 1 if notebooks(Runner(root, SNIPPETS_DIR), out) else 0
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
    runner.start(paths)
    problems = runner.wait().problems()
    for problem in problems:
        print(problem)
        if problem.detail:
            print("    " + problem.detail.replace("\n", "\n    "))
    print(f"docexec check: {len(paths)} snippet(s), {len(problems)} problem(s)")
    return 1 if problems else 0
