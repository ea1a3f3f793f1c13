"""``make notebooks``: the chapter notebooks written into a folder, for hosts that run no hook."""

from __future__ import annotations

from pathlib import Path

from docexec.core.files import write_atomically
from docexec.notebooks.chapter import chapter_notebook, dumps
from docexec.run.runner import Runner
from docexec.source.config import include_paths, site_config


def write_notebooks(runner: Runner, out: Path, docs: str = "docs") -> int:
    """Write the notebook of every page that shows an example's output to
    ``out/<page>/<page>.ipynb``, where and as the MkDocs hook serves it (the same bytes, links to
    the other pages made absolute with ``mkdocs.yml``'s ``site_url``): for hosts that run no hook,
    such as Zensical, after their build (which empties the site folder).

    Returns:
        The number of problems (printed), 0 when every notebook was written.
    """
    from docexec.host import build as builds

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
