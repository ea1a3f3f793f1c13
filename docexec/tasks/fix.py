"""``make fix``: rewrite the claims that no longer hold, the generated DOT files and the committed
Colab notebooks, printing each change; a snippet that does not parse or failed to run is left as it is."""

from __future__ import annotations

import codecs
import dataclasses
import sys

from docexec.core.files import write_atomically
from docexec.graphs import figures
from docexec.notebooks.chapter import chapter_notebook, dumps
from docexec.notebooks.colab import COLAB_FOLDER, colab_notebook
from docexec.run.results import run_problem
from docexec.run.runner import Runner
from docexec.source import claims, rewrite
from docexec.source.config import include_paths
from docexec.source.snippets import discover, long_lines


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
    rewritten: dict[str, str] = {}  # the snippets as they are after this fix, for the Colab notebooks
    for path in paths:
        result = results.runs[path]
        source = results.sources[path]
        if not result.ok:
            print(f"{run_problem(result)} (claims not rewritten: the snippet must run first)", file=out)
            left += 1
            continue
        try:
            new_source, changes = rewrite.rewrite(source, claims.masked(result))
        except claims.ClaimSyntaxError as exc:
            print(f"{path}:{exc.line}: {exc} (file left untouched)", file=out)
            left += 1
            continue
        if new_source != source:
            bom = (runner.root / path).read_bytes().startswith(codecs.BOM_UTF8)  # kept, as every other byte
            write_atomically(runner.root / path, ("\ufeff" if bom else "") + new_source)
            rewritten[path] = new_source
        for change in changes:
            print(f"{path}:{change.line}: {_show(change.before)}  =>  {_show(change.after)}", file=out)
        remaining = claims.check(path, new_source, rewrite.remap_prints(source, new_source, claims.masked(result)),
                                 unattributed=rewrite.remap_lines(source, new_source, result.unattributed))
        remaining += long_lines(path, new_source)  # fix keeps lines within the limit, but not a long code line
        for problem in remaining:
            print(str(problem), file=out)
        left += bool(remaining)
    ran = {path for path, result in results.runs.items() if result.ok}  # a failed run says nothing of its graph
    for change in figures.sync(runner.root, results.graphs(), ran, runner.folder):
        print(change, file=out)
    if not left and set(results.runs) >= set(discover(runner.root)):  # every page's examples ran, and ran well
        for change in colab_sync(runner, dataclasses.replace(results, sources={**results.sources, **rewritten})):
            print(change, file=out)
    return left


def colab_sync(runner: Runner, results, write: bool = True) -> list[str]:
    """The committed Colab notebooks (``notebooks/<page>.ipynb``, ``colab_notebook``) that are
    missing, stale or orphaned, as ``path: written/updated/removed`` lines; each is written or
    removed when ``write``. Needs every snippet's result (a full run)."""
    from docexec.host import build as builds

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
