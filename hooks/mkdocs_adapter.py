"""The MkDocs adapter: the only file of this project that imports MkDocs.

It runs every snippet once per build (``on_pre_build``), so that ``mkdocs serve`` rebuilds start from
fresh processes, logs one line per problem as ``<file>:<line>: <reason>``, and stops the build
with one summary line per failing file. The page rendering itself is done by the Markdown
extension ``docexec.markdown_ext``, which reads the same session's results. Replacing MkDocs means
replacing this file only.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import get_plugin_logger

from docexec import figures
from docexec.session import get_session
from docexec.snippets import check_includes

log = get_plugin_logger("docexec")
EXTENSION = "docexec.markdown_ext"
SNIPPETS = "pymdownx.snippets"


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    """Point the Markdown extension at this repository and make the build date reproducible."""
    if EXTENSION not in config.markdown_extensions:
        raise Abort(f"mkdocs.yml: the hook needs the Markdown extension {EXTENSION} under markdown_extensions")
    root = _root(config)
    config.mdx_configs.setdefault(EXTENSION, {})["root"] = str(root)
    if "SOURCE_DATE_EPOCH" not in os.environ:  # sitemap dates: the last commit's, not today's
        try:
            stamp = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                                   text=True, check=False).stdout.strip()
        except OSError:
            stamp = ""
        os.environ["SOURCE_DATE_EPOCH"] = stamp or "0"
    return config


def on_pre_build(config):
    """Execute every snippet, check its claims and diagrams, draw its figure; abort listing every problem."""
    folder = config.mdx_configs.get(EXTENSION, {}).get("base_path", "snippets")
    session = get_session(_root(config), folder)
    session.reset()
    session.run()
    problems = session.problems()
    for problem in problems:
        log.error(str(problem))
        if problem.detail:
            log.info(problem.detail)
    if problems:
        first: dict[str, str] = {}
        for problem in problems:
            first.setdefault(problem.path, str(problem))
        summary = "\n".join(f"  {line}" for line in first.values())
        raise Abort(
            f"{len(first)} file(s) failed ({len(problems)} problem(s) in all); the first problem of each:\n"
            f"{summary}\nFix the snippet, or run `make fix` if only its claimed output or its diagram is out of date."
        )
    try:
        figures.render_many(list(session.graphs().values()), cache_dir=session.root / figures.SVG_CACHE)
    except figures.GraphvizError as error:
        raise Abort(str(error)) from None


def on_page_markdown(markdown, page, config, files):
    """Stop on an include of a missing snippet or section, naming ``docs/<page>.md:<line>``."""
    base_paths = config.mdx_configs.get(SNIPPETS, {}).get("base_path", ["."])
    base_paths = [base_paths] if isinstance(base_paths, str) else list(base_paths)
    where = Path(config.docs_dir).name + "/" + page.file.src_uri
    bad = check_includes(markdown, _root(config), base_paths)
    for line, reason in bad:
        log.error(f"{where}:{line}: {reason}")
    if bad:
        raise Abort(f"{where}: {len(bad)} include(s) name a missing snippet or section; see above")
    return markdown
