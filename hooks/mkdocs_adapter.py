"""The MkDocs adapter: the only file of this project that imports MkDocs.

It runs every snippet once per build (``on_pre_build``), so that ``mkdocs serve`` rebuilds start from
fresh processes, logs one line per problem as ``snippets/<file>.py:<line>: <reason>``, and stops
the build when there is any. The page rendering itself is done by the Markdown extension
``docexec.markdown_ext``, which reads the same session's results. Replacing MkDocs means replacing
this file only.
"""

from __future__ import annotations

from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import get_plugin_logger

from docexec import figures
from docexec.session import get_session

log = get_plugin_logger("docexec")
EXTENSION = "docexec.markdown_ext"


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    """Point the Markdown extension at this repository, wherever ``mkdocs`` was started from."""
    if EXTENSION not in config.markdown_extensions:
        raise Abort(f"mkdocs.yml: the hook needs the Markdown extension {EXTENSION} under markdown_extensions")
    config.mdx_configs.setdefault(EXTENSION, {})["root"] = str(_root(config))
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
        failed = sorted({p.path for p in problems})
        raise Abort(
            f"{len(problems)} problem(s) in {len(failed)} file(s): {', '.join(failed)}. "
            "Fix the snippet, or run `make fix` if only its claimed output or its diagram is out of date."
        )
    try:
        figures.render_many(list(session.graphs().values()))
        for dot in session.graphs().values():
            figures.render_svg(dot)
    except figures.GraphvizError as error:
        raise Abort(str(error)) from None
