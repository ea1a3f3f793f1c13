"""``python -m docexec check|fix|notebooks|drift|upgrade`` (what the ``make`` targets of those names call).

``check`` runs every snippet and prints each problem as ``path:line: reason``; exit status 1 when
there is any. ``fix`` runs every snippet and rewrites its stale or missing claims in place, printing
each change; it never writes to a snippet that does not parse or that failed to run, and a second
run changes nothing. ``notebooks`` writes each chapter's notebook into a folder. ``drift`` runs
every snippet on another PyTorch too and reports what would change (``docexec.drift``); ``upgrade``
moves the pin to another PyTorch (``docexec.upgrade``).
"""

from __future__ import annotations

import argparse
import codecs
import os
import sys
from pathlib import Path

from . import claims, drift, figures, sideenv, upgrade
from .execute import ExecutionError
from .files import write_atomically
from .includes import include_folders
from .results import run_problem
from .runner import Runner
from .snippets import SNIPPETS_DIR, discover, long_lines


def _show(lines: list[str] | None) -> str:
    if lines is None:
        return "(no claim)"
    return " | ".join(lines) if len(lines) <= 3 else " | ".join(lines[:3]) + f" | … ({len(lines)} lines)"


def fix(runner: Runner, paths: list[str], out=sys.stdout) -> int:
    """Run ``paths``, rewrite their stale or missing claims in place (printing each change), and
    write, update or remove the generated DOT files of the snippets that ran without an error (the
    DOT file of one that failed is left as it is).

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
            new_source, changes = claims.rewrite(source, result.masked_prints())
        except claims.ClaimSyntaxError as exc:
            print(f"{path}:{exc.line}: {exc} (file left untouched)", file=out)
            left += 1
            continue
        if new_source != source:
            bom = (runner.root / path).read_bytes().startswith(codecs.BOM_UTF8)  # kept, as every other byte
            write_atomically(runner.root / path, ("\ufeff" if bom else "") + new_source)
        for change in changes:
            print(f"{path}:{change.line}: {_show(change.before)}  =>  {_show(change.after)}", file=out)
        remaining = claims.check(path, new_source, claims.remap_prints(source, new_source, result.masked_prints()))
        remaining += long_lines(path, new_source)  # fix keeps lines within the limit, but not a long code line
        for problem in remaining:
            print(str(problem), file=out)
        left += bool(remaining)
    ran = {path for path, result in results.runs.items() if result.ok}  # a failed run says nothing of its graph
    for change in figures.sync(runner.root, results.graphs(), ran, runner.folder):
        print(change, file=out)
    if not left and set(results.runs) >= set(discover(runner.root)):  # every page's examples ran, and ran well
        for change in colab_sync(runner, results):
            print(change, file=out)
    return left


def colab_sync(runner: Runner, results, write: bool = True) -> list[str]:
    """The committed Colab notebooks (``notebooks/<page>.ipynb``, ``colab_notebook``) that are
    missing, stale or orphaned, as ``path: written/updated/removed`` lines; each is written or
    removed when ``write``. Needs every snippet's result (a full run)."""
    from . import build as builds
    from .notebooks import COLAB_FOLDER, chapter_notebook, colab_notebook, dumps

    build = builds.Build(runner, include_paths(runner.root))
    wanted = {}
    for page_file in sorted((runner.root / "docs").rglob("*.md")):
        page = build.page(page_file.read_text(encoding="utf-8-sig"), page_file.relative_to(runner.root).as_posix())
        if page.snippets and not page.problems:
            notebook = colab_notebook(chapter_notebook(page, results, build.drawings, colab=True))
            wanted[f"{COLAB_FOLDER}/{page_file.stem}.ipynb"] = dumps(notebook)
    changes = []
    for path, text in wanted.items():
        target = runner.root / path
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if current != text:
            changes.append(f"{path}: {'updated' if current is not None else 'written'}")
            if write:
                write_atomically(target, text)
    folder = runner.root / COLAB_FOLDER
    for stale in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        path = f"{COLAB_FOLDER}/{stale.name}"
        if path not in wanted:
            changes.append(f"{path}: removed")
            if write:
                stale.unlink()
    return changes


def site_config(root: Path) -> dict:
    """``root/mkdocs.yml`` as a dict ({} without one), ``!ENV [NAME, default]`` read as MkDocs
    reads it (the variable's value, else the default); other tags as nothing."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    def env(loader, node):
        sequence = isinstance(node, yaml.SequenceNode)
        names = loader.construct_sequence(node) if sequence else [loader.construct_scalar(node)]
        return next((os.environ[name] for name in names[:-1] if name in os.environ), names[-1])

    Loader.add_constructor("!ENV", env)
    Loader.add_multi_constructor("!", lambda *_: None)
    try:
        return yaml.load((root / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader) or {}
    except OSError:
        return {}


def include_paths(root: Path) -> list[str]:
    """The folders pages include files from: ``pymdownx.snippets``' ``base_path`` in ``mkdocs.yml``."""
    for entry in site_config(root).get("markdown_extensions", []):
        if isinstance(entry, dict) and "pymdownx.snippets" in entry:
            return include_folders((entry["pymdownx.snippets"] or {}).get("base_path", "."), str(root))
    return include_folders(".", str(root))


def notebooks(runner: Runner, out: Path, docs: str = "docs") -> int:
    """Write the notebook of every page that shows an example's output to
    ``out/<page>/<page>.ipynb``, where and as the MkDocs hook serves it (the same bytes, links to
    the other pages made absolute with ``mkdocs.yml``'s ``site_url``): for hosts that run no hook,
    such as Zensical, after their build (which empties the site folder).

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
            stem = Path(page.name).stem
            target = out / stem / f"{stem}.ipynb"
            notebook = chapter_notebook(page, results, build.drawings, site_config(runner.root).get("site_url") or "")
            write_atomically(target, dumps(notebook))
            print(f"{target}: written")
    return 0


def drift_report(root: Path, torch: str | None, python: str | None, record: bool, out=sys.stdout) -> int:
    """Run every snippet on the pinned PyTorch and on ``torch`` (its side environment, made if
    missing, or the interpreter ``python``), print what would change and a summary line, and write
    the drift record if ``record`` (the only file written).

    Returns:
        0 when both runs could be made, whatever they found; 2 when the environment could not be
        made or run (one line on stderr says why).
    """
    if python is None:
        try:
            python = sideenv.ensure(root, torch, out)
        except sideenv.SideEnvError as exc:
            print(f"docexec drift: cannot make the PyTorch {torch} environment: {exc}", file=sys.stderr)
            return 2
    main_run, side_run = Runner(root, SNIPPETS_DIR), Runner(root, SNIPPETS_DIR, python=python)
    try:
        main_run.start()
        side_run.start()
        main, side = main_run.wait(), side_run.wait()
    except ExecutionError as exc:
        print(f"docexec drift: the examples could not be run by {python}: {exc}", file=sys.stderr)
        return 2
    finally:
        main_run.close()
        side_run.close()
    ran = sideenv.base_version(side.versions().get("torch", "?"))
    if torch is not None and ran != sideenv.base_version(torch):
        print(f"docexec drift: {python} runs PyTorch {ran}, not {torch}", file=sys.stderr)
        return 2
    found = drift.make_record(main, side, torch or ran, root, SNIPPETS_DIR)
    broken = main.problems()
    if broken:
        print(f"docexec drift: the course has {len(broken)} problem(s) on PyTorch {found.baseline} itself (`make "
              "check` lists them); the examples that fail there are not compared", file=out)
    for line in drift.report(found):
        print(line, file=out)
    if not record:
        kept = "the record was not written (RECORD=0)"
    elif drift.write(root, found):
        kept = f"written to {drift.RECORD}: commit it, and the site shows it (What changes in PyTorch {found.torch})"
    else:
        kept = f"{drift.RECORD} is up to date"
    print(f"docexec drift: {drift.summary(found)}; {kept}", file=out)
    return 0


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
    try:
        drift.current(root, SNIPPETS_DIR)
    except drift.RecordNotShownError as refused:  # reported, not counted: it is not shown, nothing else
        print(refused.problem)
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
