"""The MkDocs adapter: the only file of this project that imports MkDocs (ProperDocs runs it too).

The Markdown extension ``docexec.host.markdown_ext`` keeps every promise on its own (it runs, checks and
fills in on any host); this hook makes a build faster and friendlier under MkDocs:

* ``on_config``: the worker starts while MkDocs loads its plugins (its torch import overlaps them),
  and the extension is told to ``defer``: leave its places and let this hook check and fill them.
* ``on_pre_build``: a new build begins (``docexec.host.build.begin``): cached results are looked up,
  the rest run in the background while MkDocs converts the pages.
* ``on_files``: every page is read once (``Build.page``); a bad include or diagram stops the build
  here, with ``docs/<page>.md:<line>`` or the diagram's file; each chapter's notebook is added
  (notebooks whose snippets wait for a slow import last), and with a drift record the page "What
  changes in PyTorch <version>" (``docexec.pages.drift_page``), at the end of the nav.
  The notebooks are then made in the background (``docexec.notebooks.notebook_jobs``), each once its
  chapter's snippets are in, and converted by a process of their own while MkDocs converts the
  Markdown pages (``docexec.notebooks.notebook_html``: only when a notebook's bytes changed).
* ``on_pre_page`` of a Markdown page: ``render_kept`` converts it, or reuses its HTML from an
  earlier build while nothing it depends on changed (``docexec.pages.page_store``).
* ``on_pre_page`` of a notebook page: waits for its notebook; the page shows it as mkdocs-jupyter
  does, its figures inline (put in when it was converted); ``on_page_content`` puts a link back to
  the chapter and a download button on its page; ``on_post_page`` puts the notebook next to it.
* ``on_env``, after every page is converted and before any is written: waits for the whole run,
  logs it, stops the build on any problem (``Abort``, one ``file:line: reason`` line each), draws
  the figures and fills every page's places but the drawings.
* ``on_post_page``: puts the drawings, and a notebook page's content, in (after the search plugin
  has read the page: it need not parse either).
"""

from __future__ import annotations

import functools
import os
import posixpath
import shutil
import subprocess
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from jinja2 import FileSystemLoader
from mkdocs.exceptions import Abort
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.structure.toc import get_toc

from docexec.core import compat
from docexec.graphs.figures import GraphvizError
from docexec.host import build as builds
from docexec.host.rendered import RenderedPages
from docexec.host.serve import SearchEntries, TemplateCache, ThemeListing, freeze_what_lasts, keeping_last_good
from docexec.host.watch import BothObservers
from docexec.notebooks.chapter import title_of
from docexec.notebooks.colab import colab_url
from docexec.notebooks.notebook_html import STYLESHEET_LINK, NotebookError
from docexec.notebooks.notebook_jobs import NotebookJobs
from docexec.pages import drift_page, render
from docexec.pages.page_store import ConvertedPage, logged, page_dependencies
from docexec.pages.places import PageHtml
from docexec.run.execute import ExecutionError
from docexec.run.results import UnknownTargetError
from docexec.source.includes import include_folders

log = get_plugin_logger("docexec")
EXTENSION = "docexec.host.markdown_ext"
SNIPPETS = "pymdownx.snippets"
NOTEBOOKS = "notebooks"  # site folder of the generated chapter notebooks (shown as mkdocs-jupyter shows them)
NOTEBOOK_CACHE = ".cache/docexec/notebooks"  # where they are written: outside every watched folder


def _folder(config) -> str:
    return config.mdx_configs.get(EXTENSION, {}).get("base_path", "snippets")


def _include_paths(config) -> list[str]:
    return include_folders(config.mdx_configs.get(SNIPPETS, {}).get("base_path", "."), str(_root(config)))


def _root(config) -> Path:
    return _folder_of(config.config_file_path)


@functools.lru_cache(maxsize=8)
def _folder_of(config_file: str) -> Path:
    """The resolved folder of ``config_file`` (every event asks for it: resolved once)."""
    return Path(config_file).resolve().parent


def _build(config) -> builds.Build:
    build = builds.current(_root(config), _folder(config))
    if build is None:
        raise Abort("docexec: no build was begun (on_pre_build did not run)")
    return build


def on_config(config):
    """Point the Markdown extension at this repository, make it defer, start the worker early (under
    serve always, so that it has imported torch by the time an author first edits an example),
    and make the build date reproducible. Under serve the installed theme's templates are listed
    once (``ThemeListing``)."""
    host = type(config).__module__.split(".")[0]  # mkdocs, or properdocs (its fork)
    if host in compat.WRITTEN_FOR and compat.version_problem(host):
        raise Abort(compat.version_problem(host))
    if EXTENSION not in config.markdown_extensions:
        raise Abort(f"mkdocs.yml: the hook needs the Markdown extension {EXTENSION} under markdown_extensions")
    root = _root(config)
    config.mdx_configs.setdefault(EXTENSION, {}).update(root=str(root), defer=True)
    runner = builds.runner_for(root, _folder(config))
    if INVOCATION.command == "serve":  # a worker for the first edit, even if this build runs nothing
        with _aborting():
            runner.keep_ready()
    else:
        runner.prestart()
    if INVOCATION.theme_listing is not None:  # under serve: the installed theme is listed once
        listing, custom_dir = INVOCATION.theme_listing, config.theme.custom_dir
        compat.load_templates_with(config.theme, lambda loader: listing.loader(loader, custom_dir)
                                   if isinstance(loader, FileSystemLoader) else loader)
    if "SOURCE_DATE_EPOCH" not in os.environ:  # sitemap dates: the last commit's, not today's
        try:
            stamp = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=root, capture_output=True,
                                   text=True, check=False).stdout.strip()
        except OSError:
            stamp = ""
        os.environ["SOURCE_DATE_EPOCH"] = stamp or "0"
    return config


class ProblemsFound(Abort):
    """The build stops on ``problems``: one summary line for MkDocs, and each problem's line for the
    banner a failed rebuild puts on the pages under ``mkdocs serve`` (``docexec.host.serve``)."""

    def __init__(self, problems):
        super().__init__(builds.summary(problems))
        self.lines = [str(problem) for problem in problems]


@contextmanager
def _aborting():
    """Turn the machinery's own failures (the worker died; Graphviz missing or refusing a graph; an
    include of a snippet without a result; a file it cannot read or write) into MkDocs' ``Abort``:
    one line, no traceback."""
    try:
        yield
    except ExecutionError as error:
        raise Abort(f"the snippets could not be run: {error}") from None
    except (GraphvizError, UnknownTargetError) as error:
        raise Abort(str(error)) from None
    except NotebookError as error:
        raise Abort(f"a chapter notebook could not be shown: {error}") from None
    except OSError as error:  # a file of the cache or of the site cannot be read or written (a full disk)
        where = f"{error.filename}" if error.filename else "a file the build writes or reads"
        raise Abort(f"{where}: {error.strerror or error}") from None


#: How long ``mkdocs serve`` waits after a change before it rebuilds, in case more follow (an editor
#: that saves several files, or one file in several writes: an editor's save takes a few
#: milliseconds); MkDocs waits 0.1 s. A change written later than this starts one more rebuild (and
#: reload), whose page is right: a shorter wait costs at worst a rebuild.
SETTLE_SECONDS = 0.05


@dataclass
class Invocation:
    """What this process was started to do, as ``on_startup`` is told (once per process)."""

    command: str = "build"  # "build", "gh-deploy" or "serve"
    templates: TemplateCache | None = None  # under serve: the compiled templates, for every rebuild
    rendered: RenderedPages | None = None  # under serve: each page's template output, for the next rebuild
    theme_listing: ThemeListing | None = None  # under serve: the installed theme's template names
    run_order: list[str] | None = None  # under serve: the order the last build ran the snippets in


INVOCATION = Invocation()


def on_startup(command, dirty):
    """Note the command: under ``mkdocs serve`` each build is a preview (``builds.Build``), in
    which a committed DOT file that an edit made stale does not fail the build, the theme's
    templates are compiled once (``TemplateCache``), and Material's search index reads again
    only the pages an edit changed (``SearchEntries``; left as it is on
    another version of Material than ``compat`` was written for)."""
    INVOCATION.command = command
    if command == "serve":
        INVOCATION.templates, INVOCATION.rendered = TemplateCache(), RenderedPages()
        INVOCATION.theme_listing = ThemeListing()
    if command == "serve" and not compat.version_problem("mkdocs-material"):
        try:
            from material.plugins.search import plugin as search
        except ImportError:  # another theme: nothing to speed up
            return
        compat.reuse_search_entries(search, SearchEntries())


def on_pre_build(config):
    """Begin a build: its snippets start running; pages are converted meanwhile (see ``on_env``).
    The run starts in ``on_files``, which knows the chapters' order; under serve, a rebuild's run
    starts here, in the order of the build before (MkDocs lists the files and the theme's in the
    meantime: the edited example's result and its notebook come that much sooner)."""
    with _aborting():
        build = builds.begin(_root(config), _folder(config), _include_paths(config), Path(config.docs_dir).name,
                             start=False, preview=INVOCATION.command == "serve")
        build.drawings.program  # noqa: B018 - looked up once per build: a server notices Graphviz installed
        if INVOCATION.run_order is not None:
            build.runner.start(first=INVOCATION.run_order)
            build.run_started = True
    if build.drift_problem is not None:  # reported, not failed: see docexec.pages.drift_page
        log.info(str(build.drift_problem))


class NotebookFile(File):
    """A chapter notebook as a page of the site (``notebooks/<page>/``), as mkdocs-jupyter's
    ``NotebookFile`` makes one: MkDocs reads it, and this hook renders it."""

    def is_documentation_page(self) -> bool:
        return True


def on_files(files, config):
    """Read every page once; stop on a bad include; add each chapter's notebook
    (``notebooks/<page>.ipynb``, written in ``on_pre_page``).

    The run starts here, with the chapters' snippets in the order of their pages. MkDocs converts
    pages in the order of ``files``, notebook pages after the Markdown ones, in the same order: so
    each chapter's notebook is converted while the later chapters' snippets still run."""
    build = _build(config)
    docs = Path(config.docs_dir).name
    problems, pages = [], []
    for file in files.documentation_pages(inclusion=InclusionLevel.all):
        text = Path(file.abs_src_path).read_text(encoding="utf-8-sig")
        page = build.page(text, f"{docs}/{file.src_uri}")
        problems += page.problems
        pages.append((file.src_uri, page))
        if page.snippets and not page.problems and file.inclusion.is_included():
            build.notebooks[f"{NOTEBOOKS}/{Path(file.src_uri).stem}.ipynb"] = page
    with _aborting():
        problems += build.diagram_problems()
    if problems:
        for problem in problems:
            log.error(str(problem))
        raise ProblemsFound(problems)
    first = [path for page in build.notebooks.values() for path in page.snippets]
    if INVOCATION.command == "serve":
        INVOCATION.run_order = first
    if not build.run_started:
        with _aborting():
            build.runner.start(first=first)
    if build.drift is not None:
        files.append(File.generated(config, drift_page.PAGE, content=drift_page.page_markdown(build.drift, pages)))
        _add_to_nav(config.nav, {f"What changes in PyTorch {build.drift.torch}": drift_page.PAGE})
    out = _root(config) / NOTEBOOK_CACHE
    for name in build.notebooks:  # last, in the chapters' order: the order their snippets run in
        files.append(NotebookFile(name, src_dir=str(out), dest_dir=config.site_dir,
                                  use_directory_urls=config.use_directory_urls))
    build.notebook_jobs = NotebookJobs(build.runner, build.drawings, build.notebook_pages, config.site_url or "")
    build.notebook_jobs.start({name: (page, out / name) for name, page in build.notebooks.items()})
    return files


def _add_to_nav(nav: list | None, entry: dict) -> None:
    """Add ``entry`` to the nav's "For authors" section (at the end of the nav without one), once."""
    if nav is None:
        return
    section = next((item["For authors"] for item in nav if isinstance(item, dict) and "For authors" in item), nav)
    if entry not in section:
        section.append(entry)


def on_pre_page(page, config, files):
    """On a chapter notebook's page: wait until its notebook is written (MkDocs reads it next), and
    render the page from its HTML (``render_notebook``) in place of ``Page.render``; on any other
    page, ``render_kept`` in its place."""
    build = _build(config)
    if page.file.src_uri not in build.notebooks:
        compat.render_page_with(page, lambda config, files: render_kept(page, config, files, build))
        return page
    with _aborting():
        build.notebook_jobs.written(page.file.src_uri)
    compat.render_page_with(page, lambda *_: render_notebook(page, build))
    return page


def render_kept(page, config, files, build: builds.Build) -> None:
    """``Page.render`` of a Markdown page, or what it made of the page before, kept while nothing it
    depends on changed (``docexec.pages.page_store``); a page whose conversion logged anything (a broken
    link, say), or one an include of which changed while it was converted, is not kept, so its
    messages come again on every build."""
    store = build.page_store
    if not store.begun:  # the first page of this build: the files and their addresses are known
        snippets = config.mdx_configs.get(SNIPPETS, {}) if SNIPPETS in config.markdown_extensions else None
        store.begin(page_dependencies(config, files, Path(__file__).read_bytes()), snippets)
    names = [page.file.src_uri, page.file.url, *_sources_read(page, config, build)]
    key = store.key(page.markdown, names)
    kept = store.get(key) if key else None
    if kept is not None:
        page.content = build.attach(kept.content, kept.token, kept.places)
        page.toc = get_toc(kept.toc_tokens)
        compat.set_page_title(page, kept.title)
        page.present_anchor_ids = set(kept.anchors)
        if kept.links is not None:
            page.links_to_anchors = {files.get_file_from_path(path): links for path, links in kept.links.items()}
        return
    with logged() as records:
        compat.render_page_as_usual(page, config, files)
    if key and not records and store.key(page.markdown, names) == key:  # no include changed meanwhile
        content, places = build.detach(page.content)
        links = None if page.links_to_anchors is None else {
            file.src_uri: dict(anchors) for file, anchors in page.links_to_anchors.items()}
        store.put(key, ConvertedPage(content, build.token, places, _toc_tokens(page.toc),
                                     compat.page_title(page), set(page.present_anchor_ids or ()), links))


def _sources_read(page, config, build: builds.Build) -> list[str]:
    """The snippet files the extension reads whole while converting ``page`` (an exercise's code, a
    chapter's reading time), as this build's run read them (``Runner.source``): names and texts."""
    record = build.page(page.markdown, f"{Path(config.docs_dir).name}/{page.file.src_uri}")
    files = sorted({include.file for fence in record.fences for include in fence.includes if include.file})
    return [part for file in files for part in (file, build.runner.source(file))]


def _toc_tokens(toc) -> list[dict]:
    """A table of contents (``page.toc``) as the tokens ``get_toc`` makes it from."""
    return [{"name": link.title, "id": link.id, "level": link.level, "children": _toc_tokens(link.children)}
            for link in toc]


def render_notebook(page, build: builds.Build) -> None:
    """What ``Page.render`` makes of a chapter notebook: its HTML, table of contents and title, as
    mkdocs-jupyter makes them (``docexec.notebooks.notebook_html``), once converted."""
    with _aborting():
        html = build.notebook_jobs.html(page.file.src_uri)
    sheet = _href(page, posixpath.join(NOTEBOOKS, html.stylesheet))  # put there by on_post_page
    page.content = html.content.replace(STYLESHEET_LINK, f'<link rel="stylesheet" href="{sheet}">')
    page.toc = get_toc(html.toc_tokens)
    if html.title is not None:
        page.title = html.title


def _href(page, target: str) -> str:
    """The address of ``target`` (a path or URL in the site) relative to ``page``."""
    url = page.file.url
    here = url.rstrip("/") if url.endswith("/") or not url.endswith(".html") else posixpath.dirname(url)
    return posixpath.relpath(target, here or ".") + ("/" if target.endswith("/") else "")


def on_page_content(html, page, config, files):
    """On a chapter notebook's page: a link back to the chapter and a download button on top (its
    figures are inline already: ``docexec.notebooks.convert.inline_figures``)."""
    build = _build(config)
    record = build.notebooks.get(page.file.src_uri)
    if record is None:
        return html
    chapter = files.get_file_from_path(Path(record.name).relative_to(Path(config.docs_dir).name).as_posix())
    back = _href(page, chapter.url)
    download = _href(page, posixpath.join(posixpath.dirname(page.file.dest_uri), Path(page.file.src_uri).name))
    colab = colab_url(Path(page.file.src_uri).stem)
    content = render.notebook_nav_html(title_of(record), back, download, colab) + "\n" + html
    # What follows the title is put in by on_post_page (the search plugin skips these pages); the
    # title stays, or the theme would add one of its own.
    title = content.find("</h1>") + len("</h1>") if "</h1>" in content else 0
    return content[:title] + build.place(PageHtml(html=content[title:]))


def on_page_markdown(markdown, page, config, files):
    """On a chapter, put the links to its notebook in the note under its title."""
    build = _build(config)
    stem = Path(page.file.src_uri).stem
    notebook = files.get_file_from_path(f"{NOTEBOOKS}/{stem}.ipynb")
    if notebook is None or page.file.src_uri.startswith(f"{NOTEBOOKS}/"):
        return markdown
    view = _href(page, notebook.url)
    download = _href(page, posixpath.join(posixpath.dirname(notebook.dest_uri), f"{stem}.ipynb"))
    colab = colab_url(stem)
    in_colab = (f', or <a href="{colab}">open it in Colab</a> (without outputs: Colab runs it, perhaps with '
                "another PyTorch)") if colab else ""
    build.note_for(markdown, f'<p class="docexec-notebook">This chapter as a Jupyter notebook, with the same '
                             f'outputs: <a href="{download}" download>download it</a> or '
                             f'<a href="{view}">read it here</a>{in_colab}.</p>')
    return markdown


@event_priority(100)  # first: the search plugin reads page.content after this event
def on_env(env, config, files):
    """Wait for the run; stop the build listing every problem; draw the figures; fill every page
    in but its drawings and a notebook page's content. Under serve, the templates compiled in an
    earlier build are used again (``TemplateCache``), and so is a page's template output while
    what the template reads for it is the same (``RenderedPages``)."""
    build = _build(config)
    if INVOCATION.templates is not None:
        env.bytecode_cache = INVOCATION.templates
    if INVOCATION.rendered is not None:
        env.template_class = INVOCATION.rendered.template_class
        INVOCATION.rendered.begin(build, config)
    with _aborting():
        results = build.runner.wait()
    if results.execute:
        tally = results.tally()
        log.info(f"{len(results.runs)} snippets: {tally['run']} run, {tally['cached']} from the cache"
                 + (f", {tally['not_run']} not run" if tally["not_run"] else ""))
    else:
        log.info("snippets not run: DOCEXEC_EXECUTE=0 switches execution off")
    try:
        with _aborting():
            results = build.check()
    except builds.BuildError as failure:
        for problem in failure.problems:
            log.error(str(problem))
            if problem.detail:  # a snippet's own traceback: `mkdocs build --verbose` shows it
                log.debug(problem.detail)
        raise ProblemsFound(failure.problems) from None
    with _aborting():
        build.draw_all(results)
        for file in files.documentation_pages(inclusion=InclusionLevel.all):  # drafts too: `serve` shows them
            if file.page is not None and file.page.content is not None:
                file.page.content = build.fill(file.page.content, results, late=False)
                if build.drift is not None and file.page.present_anchor_ids is not None:  # the notes' ids
                    file.page.present_anchor_ids.update(drift_page.anchors_in(file.page.content))
    return env


def on_post_page(output, page, config):
    """Put the figures' drawings and the notebook pages' content in (after the search plugin has read
    the page); put a chapter notebook next to its page, for the download link."""
    build = _build(config)
    with _aborting():
        if page.file.src_uri in build.notebooks:
            target = Path(page.file.abs_dest_path).parent / Path(page.file.src_uri).name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page.file.abs_src_path, target)
            sheet = build.notebook_jobs.html(page.file.src_uri).stylesheet
            if sheet and not (Path(config.site_dir) / NOTEBOOKS / sheet).is_file():
                shutil.copyfile(build.notebook_pages.cache_dir / sheet, Path(config.site_dir) / NOTEBOOKS / sheet)
        return build.fill(output, build.checked)


@event_priority(100)  # before the search plugin reads page.meta
def on_page_context(context, page, config, nav):
    """Keep notebook pages out of the search index (they repeat their chapter word for word), and
    mark a notebook's chapter in the navigation as the page the reader is on (a notebook page has
    no item of its own). The mark a notebook page left comes off as the next page is rendered."""
    for other in nav.pages if nav is not None else []:
        if other.active and other is not page:
            other.active = False
    if page.file.src_uri.startswith(f"{NOTEBOOKS}/"):
        page.meta.setdefault("search", {})["exclude"] = True
        chapter = _chapter_of(page, nav)
        if chapter is not None:
            chapter.active = True
    return context


def _chapter_of(notebook_page, nav):
    """The navigation's page of the chapter whose notebook ``notebook_page`` shows (None: none)."""
    name = f"{Path(notebook_page.file.src_uri).stem}.md"
    return next((page for page in nav.pages if page.file.src_uri == name), None) if nav is not None else None


def on_post_build(config):
    """The build is over: forget its pages, places and drawings (its runner stays for the next)."""
    build = builds.current(_root(config), _folder(config))
    if INVOCATION.rendered is not None:
        INVOCATION.rendered.end()
    if build is not None:
        if build.notebook_jobs is not None:
            build.notebook_jobs.join()
        build.notebook_pages.forget_unused()
        build.page_store.forget_unused()
        builds.end(build)


def on_serve(server, config, builder):
    """Under ``mkdocs serve``, a worker waits for the first edited example (``Runner.keep_ready``)
    and a converter for the first notebook an edit changes (``Converter.keep_ready``); an edit is
    seen as it is written (``docexec.host.watch``: the system's change notices, MkDocs' polling
    besides), and rebuilt after ``SETTLE_SECONDS``; what the first build leaves alive is kept out
    of the garbage collector's full collections (``freeze_what_lasts``). A rebuild
    that fails leaves the last good build on show: MkDocs empties the site folder as a build starts
    and, after a failed one, holds every request until a build succeeds. Each good build is kept
    (as hard links, so keeping costs no copying); a failed one is replaced by it, its problems
    logged, and the server goes on."""
    with _aborting():  # the first edit then costs a fork, not an import of torch or nbconvert
        builds.runner_for(_root(config), _folder(config)).keep_ready()
        builds.converter_for(_root(config)).keep_ready()
    freeze_what_lasts()
    rebuild = keeping_last_good(Path(server.root), builder, _log_failure)
    compat.replace_builder(server, rebuild)
    if not compat.version_problem("watchdog"):
        compat.watch_with(server, BothObservers())
        compat.rebuild_after(server, SETTLE_SECONDS)
    return server


def _log_failure(problem: Exception | str) -> None:
    log.error(problem if isinstance(problem, str | Abort) else f"{type(problem).__name__}: {problem}")


def on_build_error(error):
    """A build that stopped early (a bad include, an exception, a claim that does not hold) stops
    the snippets it started and writes no more notebooks."""
    for runner in builds.runners():
        runner.cancel()
    for build in builds.under_way():
        if build.notebook_jobs is not None:
            build.notebook_jobs.cancel()
    if INVOCATION.rendered is not None:
        INVOCATION.rendered.end(finished=False)


def on_shutdown():
    """``mkdocs serve`` ends: stop a run under way, a worker started early and the notebook converter."""
    for runner in builds.runners():
        runner.close()
    for converter in builds.converters():
        converter.close()
