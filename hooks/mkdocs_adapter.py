"""The MkDocs adapter: the only file of this project that imports MkDocs.

It runs every snippet once per build (``on_pre_build``), so that ``mkdocs serve`` rebuilds start from
fresh processes, logs one line per problem as ``<file>:<line>: <reason>``, and stops the build
with one summary line per failing file. The page rendering itself is done by the Markdown
extension ``docexec.markdown_ext``, which reads the same session's results. Replacing MkDocs means
replacing this file only.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
import uuid
from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File

from docexec import figures
from docexec.markdown_ext import include_fences
from docexec.notebooks import chapter_notebook, dumps
from docexec.session import get_session
from docexec.snippets import check_includes

log = get_plugin_logger("docexec")
EXTENSION = "docexec.markdown_ext"
SNIPPETS = "pymdownx.snippets"
NOTEBOOKS = "notebooks"  # site folder of the generated chapter notebooks (rendered by mkdocs-jupyter)
NOTEBOOK_CACHE = ".cache/docexec/notebooks"  # where they are written: outside every watched folder


def _folder(config) -> str:
    return config.mdx_configs.get(EXTENSION, {}).get("base_path", "snippets")


def _include_paths(config) -> list[str]:
    paths = config.mdx_configs.get(SNIPPETS, {}).get("base_path", ["."])
    return [paths] if isinstance(paths, str) else list(paths)


def _is_chapter(text: str, config) -> bool:
    return any(include_fences(text.split("\n"), _root(config), _folder(config)))


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    """Point the Markdown extension at this repository and make the build date reproducible."""
    if EXTENSION not in config.markdown_extensions:
        raise Abort(f"mkdocs.yml: the hook needs the Markdown extension {EXTENSION} under markdown_extensions")
    root = _root(config)
    config.mdx_configs.setdefault(EXTENSION, {})["root"] = str(root)
    # If a snippet must run, start the worker now: its torch import overlaps MkDocs' own start-up.
    get_session(root, _folder(config)).prestart()
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
    figures.forget_dot()  # looked up again by each build: a server notices Graphviz installed meanwhile
    session = get_session(_root(config), _folder(config))
    session.reset()
    session.run(while_waiting=_warm_up_nbconvert if "mkdocs-jupyter" in config.plugins else None)
    if session.execute:
        tally = session.tally()
        log.info(f"{len(session.results)} snippets: {tally['run']} run, {tally['cached']} from the cache"
                 + (f", {tally['not_run']} not run" if tally["not_run"] else ""))
    else:
        log.info("snippets not run: DOCEXEC_EXECUTE=0 switches execution off")
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
    dots = list(session.graphs().values())
    try:
        figures.render_many(dots, cache_dir=session.root / figures.SVG_CACHE)
        if session.execute:  # without execution no graph is known: every drawing would look unused
            # drawings no page of this build shows: neither a run's graph nor a hand-drawn diagram
            figures.prune(session.root / figures.SVG_CACHE, dots + figures.hand_drawn(session.root))
    except figures.GraphvizError as error:
        raise Abort(str(error)) from None


def _warm_up_nbconvert() -> None:
    """Convert a small notebook with nbconvert, as mkdocs-jupyter will convert each chapter's.

    The first conversion in a process costs about half a second more than the next ones (imports
    of Markdown and highlighting code, regular expressions compiled and kept by ``re``). Called
    while the snippets run, when this process would otherwise wait, it takes that cost off the
    first chapter notebook. Best effort: a failure here only loses the head start.
    """
    try:
        import nbformat
        from nbconvert import HTMLExporter

        v4 = nbformat.v4
        notebook = v4.new_notebook(cells=[
            v4.new_markdown_cell("# A title\n\nSome *text*, `code` and a [link](https://pytorch.org)."),
            v4.new_code_cell("print(1)", outputs=[v4.new_output("stream", name="stdout", text="1\n")]),
        ], metadata={"language_info": {"name": "python"}})
        HTMLExporter().from_notebook_node(notebook)
    except Exception as error:  # noqa: BLE001 - a head start only
        log.debug(f"nbconvert warm-up skipped: {error}")


@event_priority(100)  # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files, config):
    """Add each chapter's notebook (``notebooks/<page>.ipynb``) with this build's outputs."""
    session = get_session(_root(config), _folder(config))
    out = _root(config) / NOTEBOOK_CACHE
    for page in list(files.documentation_pages()):
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        if not _is_chapter(text, config) or check_includes(text, _root(config), _include_paths(config)):
            continue  # a page with a bad include gets no notebook; on_page_markdown reports it
        name = f"{NOTEBOOKS}/{Path(page.src_uri).stem}.ipynb"
        content = dumps(chapter_notebook(Path(page.abs_src_path), session, config.site_url or "",
                                         _include_paths(config)))
        target = out / name
        if not target.is_file() or target.read_text(encoding="utf-8") != content:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.tmp")
            tmp.write_text(content, encoding="utf-8")
            os.replace(tmp, target)
        files.append(File(name, src_dir=str(out), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
    return files


#: The SVG element of each figure the Markdown extension inlined (see docexec.markdown_ext._figure).
#: Up to the first "</svg>", written as runs of anything but "<" so that the engine does not try
#: the end tag at every character of the drawing, as a lazy ".*?" would.
_FIGURE_SVG = re.compile(r'(<figure class="docexec-figure">\n)(<svg\b[^<]*(?:<(?!/svg>)[^<]*)*</svg>)')
_TOKEN = uuid.uuid4().hex  # so that no page text can pass for a marker
_SVG_MARKER = re.compile(rf"<!--docexec-svg-{_TOKEN}-(\d+)-->")
_SET_ASIDE: dict[str, list[str]] = {}  # page src_uri -> the SVG elements taken out of its content


def on_page_content(html, page, config, files):
    """Set each figure's SVG aside until ``on_post_page``. Plugins that read ``page.content``
    meanwhile (the search plugin parses every tag of it) would otherwise handle thousands of SVG
    elements per chapter for nothing: a figure's words are in its caption and alt text."""
    svgs: list[str] = []

    def set_aside(match: re.Match) -> str:
        svgs.append(match.group(2))
        return f"{match.group(1)}<!--docexec-svg-{_TOKEN}-{len(svgs) - 1}-->"

    _SET_ASIDE[page.file.src_uri] = svgs
    return _FIGURE_SVG.sub(set_aside, html)


def on_post_page(output, page, config):
    """Put the figures set aside by ``on_page_content`` back in the page's HTML."""
    svgs = _SET_ASIDE.pop(page.file.src_uri, [])
    return _SVG_MARKER.sub(lambda match: svgs[int(match.group(1))], output) if svgs else output


@event_priority(100)  # before the search plugin reads page.meta
def on_page_context(context, page, config, nav):
    """Keep notebook pages out of the search index: they repeat their chapter word for word."""
    if page.file.src_uri.startswith(f"{NOTEBOOKS}/"):
        page.meta.setdefault("search", {})["exclude"] = True
    return context


def on_page_markdown(markdown, page, config, files):
    """Stop on an include of a missing snippet or section, naming ``docs/<page>.md:<line>``; on a
    chapter, link its notebook under the title."""
    where = Path(config.docs_dir).name + "/" + page.file.src_uri
    bad = check_includes(markdown, _root(config), _include_paths(config))
    for line, reason in bad:
        log.error(f"{where}:{line}: {reason}")
    if bad:
        raise Abort(f"{where}: {len(bad)} include(s) name a missing snippet or section; see above")
    stem = Path(page.file.src_uri).stem
    notebook = files.get_file_from_path(f"{NOTEBOOKS}/{stem}.ipynb")
    if notebook is None or page.file.src_uri.startswith(f"{NOTEBOOKS}/"):
        return markdown
    here = page.file.url.rstrip("/") if config.use_directory_urls else posixpath.dirname(page.file.url)
    view = posixpath.relpath(notebook.url, here or ".") + ("/" if notebook.url.endswith("/") else "")
    download = posixpath.relpath(posixpath.join(posixpath.dirname(notebook.dest_uri), f"{stem}.ipynb"), here or ".")
    links = (f'<p class="docexec-notebook">This chapter as a Jupyter notebook, with the same outputs: '
             f'<a href="{download}" download>download it</a> or <a href="{view}">read it here</a>.</p>')
    lines = markdown.split("\n")
    for number, line in enumerate(lines):
        if line.startswith("# "):
            return "\n".join(lines[: number + 1] + ["", links] + lines[number + 1:])
    return links + "\n\n" + markdown
