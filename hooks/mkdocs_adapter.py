"""The MkDocs adapter: the only file of this project that imports MkDocs.

It runs every snippet once per build, so that ``mkdocs serve`` rebuilds start from fresh
processes, logs one line per problem as ``<file>:<line>: <reason>``, and stops the build with one
summary line per failing file before any page is written. The page rendering itself is done by the
Markdown extension ``docexec.markdown_ext``, which reads the same session's results. Replacing
MkDocs means replacing this file only.

A build's steps, by MkDocs event:

* ``on_pre_build``: the run starts (``Session.start``): cached results are looked up, the rest run
  in the background while MkDocs goes on.
* pages are converted meanwhile, with the extension's ``defer`` option: each output block, figure
  and versions note is left as a place to fill.
* ``on_pre_page`` of a chapter's notebook page: waits for that chapter's snippets and writes the
  notebook, which mkdocs-jupyter then converts.
* ``on_env``, after every page is converted and before any is written: waits for the whole run,
  logs it, stops the build on any problem (``Abort``), draws the figures and fills every page.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
import uuid
from contextlib import contextmanager
from pathlib import Path

from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel

from docexec import figures
from docexec.execute import ExecutionError
from docexec.files import write_atomically
from docexec.markdown_ext import fill, include_fences
from docexec.notebooks import chapter_notebook, dumps
from docexec.session import get_session, sessions
from docexec.snippets import check_includes, split_target

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


def _root(config) -> Path:
    return Path(config.config_file_path).resolve().parent


def on_config(config):
    """Point the Markdown extension at this repository and make the build date reproducible."""
    if EXTENSION not in config.markdown_extensions:
        raise Abort(f"mkdocs.yml: the hook needs the Markdown extension {EXTENSION} under markdown_extensions")
    root = _root(config)
    config.mdx_configs.setdefault(EXTENSION, {}).update(root=str(root), defer=True)  # filled in on_env
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


@contextmanager
def _aborting():
    """Turn the machinery's own failures (the worker died; Graphviz missing or refusing a graph)
    into MkDocs' ``Abort``, which prints its one-line reason without a traceback."""
    try:
        yield
    except ExecutionError as error:
        raise Abort(f"the snippets could not be run: {error}") from None
    except figures.GraphvizError as error:
        raise Abort(str(error)) from None


def on_pre_build(config):
    """Start running the snippets; pages are converted while they run (see ``on_env``)."""
    figures.forget_dot()  # looked up again by each build: a server notices Graphviz installed meanwhile
    with _aborting():
        figures.dot_program()
    session = get_session(_root(config), _folder(config))
    session.reset()
    session.start()


@event_priority(100)  # first: the search plugin reads page.content after this event
def on_env(env, config, files):
    """Wait for the run; abort listing every problem; draw the figures; fill in every page."""
    session = get_session(_root(config), _folder(config))
    with _aborting():
        session.wait()
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
    with _aborting():
        figures.render_many(dots, cache_dir=session.root / figures.SVG_CACHE)
        if session.execute:  # without execution no graph is known: every drawing would look unused
            # drawings no page of this build shows: neither a run's graph nor a hand-drawn diagram
            figures.prune(session.root / figures.SVG_CACHE, dots + figures.hand_drawn(session.root))
        for file in files.documentation_pages(inclusion=InclusionLevel.all):  # drafts too: `serve` shows them
            page = file.page
            if page is not None and page.content is not None:
                page.content = _set_aside(fill(page.content, session), file.src_uri)
    # Pages are written, and listed in the sitemap, in the order of files: the notebooks' own order
    # again (on_files ordered them by what was cached), so that every build writes the same bytes.
    for name in _NOTEBOOK_OF:
        file = files.get_file_from_path(name)
        if file is not None:
            files.remove(file)
            files.append(file)
    return env


def on_build_error(error):
    """A build that stopped early (a bad include, an exception) stops the snippets it started."""
    for session in sessions():
        session.cancel()


def on_shutdown():
    """``mkdocs serve`` ends: stop a run still under way."""
    for session in sessions():
        session.cancel()


@event_priority(100)  # before mkdocs-jupyter turns .ipynb files into pages
def on_files(files, config):
    """Add each chapter's notebook (``notebooks/<page>.ipynb``); it is written in ``on_pre_page``.

    MkDocs converts pages in the order of ``files``, notebook pages after the Markdown ones. The
    notebooks whose snippets need a slow import first (``Session.lateness``) go last, so that
    the others are converted while those snippets still run."""
    session = get_session(_root(config), _folder(config))
    out = _root(config) / NOTEBOOK_CACHE
    _NOTEBOOK_OF.clear()
    notebooks = []
    for page in list(files.documentation_pages()):
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        fences = list(include_fences(text.split("\n"), _root(config), _folder(config)))
        if not fences or check_includes(text, _root(config), _include_paths(config)):
            continue  # a page with a bad include gets no notebook; on_page_markdown reports it
        name = f"{NOTEBOOKS}/{Path(page.src_uri).stem}.ipynb"
        _NOTEBOOK_OF[name] = page.abs_src_path
        paths = [f"{_folder(config)}/{split_target(t)[0]}" for _, _, _, targets in fences for t in targets]
        notebooks.append((session.lateness(paths), len(notebooks), name))
    for _, _, name in sorted(notebooks):
        files.append(File(name, src_dir=str(out), dest_dir=config.site_dir,
                          use_directory_urls=config.use_directory_urls))
    return files


#: notebook src_uri -> the chapter page (Markdown file) it is made from, in the order of the pages
_NOTEBOOK_OF: dict[str, str] = {}


@event_priority(100)  # before mkdocs-jupyter reads the notebook (its cache is keyed by the file's bytes)
def on_pre_page(page, config, files):
    """Write a chapter's notebook with this build's outputs, once that chapter's snippets have run.

    Notebook pages come after every Markdown page, so the snippets have had the time it took to
    convert those. The file is rewritten only if its text changed."""
    chapter = _NOTEBOOK_OF.get(page.file.src_uri)
    if chapter is None:
        return page
    session = get_session(_root(config), _folder(config))
    with _aborting():
        content = dumps(chapter_notebook(Path(chapter), session, config.site_url or "", _include_paths(config)))
    target = Path(page.file.abs_src_path)
    if not target.is_file() or target.read_text(encoding="utf-8") != content:
        write_atomically(target, content)
    return page


#: The SVG element of each figure the Markdown extension inlined (see docexec.markdown_ext._figure).
#: Up to the first "</svg>", written as runs of anything but "<" so that the engine does not try
#: the end tag at every character of the drawing, as a lazy ".*?" would.
_FIGURE_SVG = re.compile(r'(<figure class="docexec-figure">\n)(<svg\b[^<]*(?:<(?!/svg>)[^<]*)*</svg>)')
_TOKEN = uuid.uuid4().hex  # so that no page text can pass for a marker
_SVG_MARKER = re.compile(rf"<!--docexec-svg-{_TOKEN}-(\d+)-->")
_SET_ASIDE: dict[str, list[str]] = {}  # page src_uri -> the SVG elements taken out of its content


def _set_aside(html: str, src_uri: str) -> str:
    """Set each figure's SVG aside until ``on_post_page``. Plugins that read ``page.content``
    meanwhile (the search plugin parses every tag of it) would otherwise handle thousands of SVG
    elements per chapter for nothing: a figure's words are in its caption and alt text."""
    svgs: list[str] = []

    def set_aside(match: re.Match) -> str:
        svgs.append(match.group(2))
        return f"{match.group(1)}<!--docexec-svg-{_TOKEN}-{len(svgs) - 1}-->"

    _SET_ASIDE[src_uri] = svgs
    return _FIGURE_SVG.sub(set_aside, html)


def on_post_page(output, page, config):
    """Put the figures set aside in ``on_env`` back in the page's HTML."""
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
