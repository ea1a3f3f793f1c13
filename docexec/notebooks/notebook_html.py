"""A chapter notebook's page, as mkdocs-jupyter shows a notebook, converted once per notebook.

mkdocs-jupyter (https://github.com/danielfrg/mkdocs-jupyter) is how this site shows its notebooks:
its nbconvert template (``mkdocs_html/notebook.html.j2``), its code highlighting and its table of
contents. Used as a plugin, it imports nbconvert and Jupytext in every build (about 0.4 s) and makes
a new exporter, whose templates Jinja2 compiles again, for each notebook. Here a notebook is
converted as its plugin converts one (``nb2html`` in ``mkdocs_jupyter/nbconvert2.py`` of
mkdocs-jupyter 0.26.3, with that version's defaults: no execution, inputs and prompts shown) with
these differences:

* the HTML of a notebook is kept in ``cache_dir`` under the SHA-256 of the notebook's bytes and
  the converting code (``page_name``): an unchanged notebook is not converted again, in this build
  or the next (``NotebookPages``);
* conversions run in a process of their own (``Converter``, ``python -m docexec.notebooks.notebook_html``),
  started when a first notebook needs converting: the build goes on with its Markdown pages
  meanwhile, and nothing of nbconvert or mkdocs-jupyter is imported by the build's process;
* that process keeps one exporter for every notebook, and under ``mkdocs serve`` for every rebuild;
* the last step of nbconvert's ``HTMLExporter`` (alternative text for images that have none, and
  ``tabindex="0"`` on cells' inputs and outputs, done by parsing the whole page with BeautifulSoup
  and writing it out again: two thirds of a conversion) is done on the text (``accessible_html``):
  BeautifulSoup reads the result as the very tree nbconvert writes out (tested), in a third of the
  time;
* the table of contents and the title come from the headings of the page's HTML (``headings``):
  the plugin makes them from a Markdown copy of the notebook without its inline code, so that a
  heading with code lost that code in the contents and the title, and its link missed the
  heading's id; the headings' ids are the ones the chapter page gives them (``chapter_ids``);
* each figure, which nbconvert shows as an image, is put in as an inline SVG figure, as on the
  chapter's page (``inline_figures``), once, with the rest of the conversion;
* the style sheets nbconvert's template puts in every page (JupyterLab's theme and the code
  highlighting, about 590 kB, the same on every notebook page) are one file, ``stylesheet``, that
  each page links to in their place (``split_stylesheet``): a reader's browser loads them once.
"""

from __future__ import annotations

import base64
import collections
import functools
import hashlib
import itertools
import json
import os
import re
import signal
import subprocess
import sys
import threading
import weakref
from concurrent.futures import Future
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path

from docexec.core import compat
from docexec.core.files import IMPORT_DIR, remove_unused
from docexec.core.files import write_atomically
from docexec.pages.render import figure_html, labelled

#: Where the pages' HTML is kept between builds, relative to the repository root.
NOTEBOOK_HTML_CACHE = ".cache/docexec/notebook-html"

#: The packages whose code makes a notebook's page (with this module's and ``docexec.pages.render``'s):
#: HTML that another version of one of them made is not reused (``page_name``). Python-Markdown
#: makes the headings' ids (``chapter_ids``).
CONVERTING_PACKAGES = ("mkdocs-jupyter", "nbconvert", "mistune", "pygments", "jupyterlab-pygments", "jinja2",
                       "markdown")

#: Where a page's HTML links to its style sheet, until the page's address is known (the MkDocs hook
#: puts in the sheet's address relative to the page).
STYLESHEET_LINK = '<link rel="stylesheet" href="docexec:notebook-stylesheet">'
_STYLE = re.compile(r'<style type="text/css">(.*?)</style>', re.S)


class NotebookError(Exception):
    """A notebook could not be converted (not a valid notebook), or the converting process ended."""


@dataclass(frozen=True)
class NotebookHtml:
    """What a notebook's page shows: ``content`` (HTML), ``toc_tokens`` (as Python-Markdown's
    ``toc`` extension makes them, for ``mkdocs.structure.toc.get_toc``) and ``title`` (its first
    level-1 heading, or None)."""

    content: str
    toc_tokens: list[dict]
    title: str | None
    stylesheet: str = ""  # the file name, in cache_dir, of the style sheet STYLESHEET_LINK stands for


def split_stylesheet(html: str) -> tuple[str, str]:
    """Take the first run of ``<style type="text/css">`` elements (nothing but white space between
    them) out of ``html``, as nbconvert's templates write them; returns the HTML with
    ``STYLESHEET_LINK`` in their place, and their CSS joined in their order (so the cascade is the
    same). Without such an element, ``html`` and "" are returned.

    A linked sheet resolves the relative addresses of its ``url()`` against its own address, not the page's:
    nbconvert embeds the theme's assets as ``data:`` addresses, so there are none."""
    run = []
    for match in _STYLE.finditer(html):
        if run and html[run[-1].end():match.start()].strip():
            break
        run.append(match)
    if not run:
        return html, ""
    return html[:run[0].start()] + STYLESHEET_LINK + html[run[-1].end():], "\n".join(m.group(1) for m in run)


def page_name(data: bytes) -> str:
    """The file name, in a cache folder, of the page of a notebook whose bytes are ``data``."""
    return hashlib.sha256(_converting_code() + b"\0" + data).hexdigest() + ".json"


@functools.cache
def _converting_code() -> bytes:
    """A digest of what converts a notebook besides its bytes: this module's code, that of the
    figures it puts in (``docexec.pages.render``), and the installed versions of ``CONVERTING_PACKAGES``
    (looked up once per process)."""
    from importlib import metadata

    from docexec.pages import render

    digest = hashlib.sha256(Path(__file__).read_bytes() + b"\0" + Path(render.__file__).read_bytes())
    for name in CONVERTING_PACKAGES:
        try:
            digest.update(f"\0{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"\0{name} absent".encode())
    return digest.hexdigest().encode()


def _read(path: Path) -> NotebookHtml | None:
    """The page kept in the file ``path``, or None if it is absent or broken (converted again)."""
    try:
        return NotebookHtml(**json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None


class Converter:
    """The process that converts notebooks (``python -m docexec.notebooks.notebook_html``), started at the
    first ``submit`` and kept for the next ones; one per repository and process (``mkdocs serve``
    rebuilds share it). It is stopped by ``close``, or when it is dropped or the interpreter ends.

    Args:
        root: the working folder of the process (the repository root).
    """

    def __init__(self, root: Path):
        self.root = Path(root)
        self._proc: subprocess.Popen | None = None
        self._pending: collections.deque[Future] = collections.deque()  # the running process's
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _stop, [None])

    def keep_ready(self) -> None:
        """Start the process now if it is not running; it imports nbconvert and makes its exporter
        at once (``mkdocs serve``: the first notebook an edit changes is then converted without
        waiting for either).

        Raises:
            NotebookError: the process could not be started.
        """
        with self._lock:
            self._running()

    def submit(self, notebook: Path, cache_dir: Path) -> Future:
        """Convert the notebook file ``notebook``; its page is written to ``cache_dir`` (JSON of a
        ``NotebookHtml``, named by ``page_name`` of the bytes the process read, so that a file
        rewritten meanwhile is never kept under the name of its old bytes). Returns at once with a
        future of that ``NotebookHtml``; conversions are done one after another, in the order they
        were submitted.

        The future raises ``NotebookError`` if the notebook cannot be converted (the first line of
        nbconvert's error) or the process ended first (a new one is started for the next ``submit``).
        """
        future: Future = Future()
        with self._lock:
            try:
                proc = self._running()
                proc.stdin.write(json.dumps({"notebook": str(notebook), "cache": str(cache_dir)}) + "\n")
                proc.stdin.flush()
            except (NotebookError, OSError) as error:
                future.set_exception(error if isinstance(error, NotebookError) else
                                     NotebookError(f"the notebook converter ended: {error}"))
                return future
            self._pending.append(future)
        return future

    def _running(self) -> subprocess.Popen:
        """The process, started if it is not running (called with the lock held)."""
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [str(IMPORT_DIR)] + ([os.environ["PYTHONPATH"]]
                                                                 if os.environ.get("PYTHONPATH") else [])))
            try:
                self._proc = subprocess.Popen([sys.executable, "-m", "docexec.notebooks.notebook_html"], cwd=self.root, env=env,
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            except OSError as error:
                raise NotebookError(f"could not start the notebook converter: {error}") from error
            self._pending = collections.deque()  # what an ended process left is failed by its own reader
            self._finalizer.detach()
            self._finalizer = weakref.finalize(self, _stop, [self._proc])
            # the thread holds no reference to this object, so that dropping it stops the process
            threading.Thread(target=_read_replies, args=(self._proc, self._pending, self._lock), daemon=True,
                             name="docexec-notebooks").start()
        return self._proc

    def close(self) -> None:
        """Stop the process; conversions not done yet fail with ``NotebookError``."""
        self._finalizer()


def _read_replies(proc: subprocess.Popen, pending: collections.deque, lock: threading.Lock) -> None:
    """Settle each future submitted to ``proc`` as it answers; when it ends, fail the ones left."""
    for line in proc.stdout:
        with lock:
            future = pending.popleft()
        _settle(future, json.loads(line))  # its callbacks may submit again: not under the lock
        del future  # kept while the next reply is awaited, it would keep its callbacks' objects alive
    proc.wait()
    with lock:
        left = list(pending)
        pending.clear()
    for future in left:
        future.set_exception(NotebookError(f"the notebook converter ended (exit status {proc.returncode})"))


def _settle(future: Future, reply: dict) -> None:
    """Give ``future`` the converter's ``reply``: the page it wrote, or its error."""
    if "error" in reply:
        future.set_exception(NotebookError(reply["error"]))
        return
    made = _read(Path(reply["done"]))
    future.set_result(made) if made is not None else future.set_exception(
        NotebookError(f"the notebook converter wrote no page to {reply['done']}"))


def _stop(procs: list[subprocess.Popen | None]) -> None:
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.stdin.close()  # it ends once its input ends
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class NotebookPages:
    """A build's notebook pages: each looked up in ``cache_dir`` by the notebook's bytes, or
    converted by ``converter``; one per build (``cache_dir`` and ``converter`` outlive it).

    Args:
        cache_dir: where pages are kept between builds.
        converter: the process that converts (default: one of this object's own).
    """

    def __init__(self, cache_dir: Path, converter: Converter | None = None):
        self.cache_dir = Path(cache_dir)
        self.converter = converter if converter is not None else Converter(Path.cwd())
        self.used: set[str] = set()  # file names in cache_dir this build used (pages and style sheets)
        self.converted = 0  # notebooks this build converted (not found in cache_dir)
        self._sheets: dict[str, bool] = {}  # style sheet -> whether it is intact (_sheet_intact)

    def submit(self, notebook: Path) -> Future:
        """Begin to make the page of the notebook file ``notebook``: a future of its ``NotebookHtml``,
        done at once if ``cache_dir`` holds the page of these bytes. It raises ``NotebookError``
        (see ``Converter.submit``).

        Raises:
            OSError: the notebook cannot be read.
        """
        name = page_name(Path(notebook).read_bytes())
        self.used.add(name)
        cached = _read(self.cache_dir / name)
        if cached is not None and self._sheet_intact(cached.stylesheet):
            done: Future = Future()
            done.set_result(cached)
            made = done
        else:
            self.converted += 1
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            made = self.converter.submit(Path(notebook).resolve(), self.cache_dir.resolve())
        made.add_done_callback(lambda page: page.exception() or self.used.add(page.result().stylesheet))
        return made

    def _sheet_intact(self, stylesheet: str) -> bool:
        """Whether the style sheet ``stylesheet`` is in ``cache_dir`` with the bytes its name is the
        digest of (looked at once per build); a page without one needs none."""
        if not stylesheet:
            return True
        if stylesheet not in self._sheets:
            try:
                digest = hashlib.sha256((self.cache_dir / stylesheet).read_bytes()).hexdigest()
            except OSError:
                digest = ""
            self._sheets[stylesheet] = stylesheet == f"jupyter-{digest[:16]}.css"
        return self._sheets[stylesheet]

    def html(self, notebook: Path) -> NotebookHtml:
        """The page of the notebook file ``notebook`` (``submit``, waited for).

        Raises:
            OSError: the notebook cannot be read.
            NotebookError: it cannot be converted.
        """
        return self.submit(notebook).result()

    def forget_unused(self) -> int:
        """Remove the pages and style sheets in ``cache_dir`` this build did not use; returns how many."""
        return remove_unused(self.cache_dir, lambda name: name.endswith((".json", ".css")) and name not in self.used)


_TAG = re.compile(r"<(img|div)\b([^<>]*)>")
_CLASS = re.compile(r'\bclass="([^"]*)"')
_FOCUSABLE = {"jp-Cell-inputWrapper", "jp-OutputArea-output"}
NO_ALT = "No description has been provided for this image"


def accessible_html(html: str) -> str:
    """What ``HTMLExporter.from_notebook_node`` of nbconvert 7.17.2 (``nbconvert/exporters/html.py``)
    does to the template's HTML with BeautifulSoup, done on the text: an ``<img>`` without ``alt``
    gets ``alt="No description has been provided for this image"``, and a ``<div>`` inside the
    ``jp-Notebook`` element whose classes include ``jp-Cell-inputWrapper`` or
    ``jp-OutputArea-output`` gets ``tabindex="0"`` (so a reader can scroll it from the keyboard).
    Everything else is left byte for byte (BeautifulSoup writes the whole page out again)."""
    notebook = html.find('class="jp-Notebook"')

    def fix(match: re.Match) -> str:
        name, attributes = match.groups()
        if name == "img":
            if re.search(r"\balt=", attributes):
                return match.group(0)
            closing = "/" if attributes.rstrip().endswith("/") else ""
            kept = attributes.rstrip()[:-1].rstrip() if closing else attributes
            return f'<img{kept} alt="{NO_ALT}"{closing}>'
        classes = _CLASS.search(attributes)
        if (notebook < 0 or match.start() < notebook or classes is None or "tabindex=" in attributes
                or not _FOCUSABLE & set(classes.group(1).split())):
            return match.group(0)
        return f'<div{attributes} tabindex="0">'

    return _TAG.sub(fix, html)


_HEADING = re.compile(r'<h([1-6]) id="([^"]*)">(.*?)</h\1>', re.S)
_ANY_HEADING = re.compile(r"<h([1-6])((?:\s[^>]*)?)>(.*?)</h\1>", re.S)
_ANCHOR_LINK = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)


def _heading_text(inner: str) -> str:
    """The text of a heading whose HTML inside ``<hN>`` is ``inner``: without tags or anchor link."""
    return unescape(re.sub(r"<[^>]+>", "", _ANCHOR_LINK.sub("", inner)))


def chapter_ids(html: str) -> str:
    """``html`` with each heading's ``id`` made as Python-Markdown's ``toc`` extension makes the
    chapter page's (``slugify`` of the heading's text, then ``unique``: ``_1``, ``_2``... for a
    repeated or empty one; https://python-markdown.github.io/extensions/toc/), and its anchor link
    pointing there: the notebook's links to sections, copied from the chapter, then lead to the
    same headings. nbconvert gives ids of its own (``Core-Concepts``; mkdocs-jupyter's plugin
    patches it to make them lowercase), the same one to a repeated heading and an empty one to a
    heading of symbols or Greek letters.

    Only the headings of the notebook's Markdown are renamed: those that have nbconvert's anchor
    link. A heading written as raw HTML (its own ``id`` kept; toc leaves it alone too), one in an
    HTML comment or in a cell's output is left as it is, and so is one nbconvert gave no anchor link
    (a heading holding a ``<br>``: its text cannot be told from raw HTML)."""
    from markdown.extensions.toc import slugify, unique

    used: set[str] = set()

    def renamed(match: re.Match) -> str:
        level, attributes, inner = match.groups()
        if not _ANCHOR_LINK.search(inner):
            return match.group(0)
        new = unique(slugify(_heading_text(inner), "-"), used)
        attributes = re.sub(r'\s+id="[^"]*"', "", attributes)
        inner = re.sub(r'(<a class="anchor-link" href=")[^"]*(")', lambda a: f"{a.group(1)}#{new}{a.group(2)}", inner)
        return f'<h{level} id="{new}"{attributes}>{inner}</h{level}>'

    return _ANY_HEADING.sub(renamed, html)


def headings(html: str, depth: int = 6) -> tuple[list[dict], str | None]:
    """The table of contents of a notebook page and its title, from the headings (``<h1>`` to
    ``<h{depth}>``, with the ``id`` and the anchor link nbconvert gives each heading of the
    notebook's Markdown; a raw HTML heading has no anchor link) of its HTML: tokens as Python-Markdown's
    ``toc`` extension makes them (``level``, ``id``, ``name``: the text, escaped; ``html``: the
    heading's HTML without its anchor link; ``data-toc-label``; ``children``), nested by level,
    and the name of the first level-1 heading (None without one)."""
    tokens: list[dict] = []
    stack: list[dict] = []
    title = None
    for match in _HEADING.finditer(html):
        level = int(match.group(1))
        if level > depth or not _ANCHOR_LINK.search(match.group(3)):  # raw HTML: toc leaves it out too
            continue
        inner = _ANCHOR_LINK.sub("", match.group(3)).strip()
        name = escape(_heading_text(inner), quote=False).strip()
        token = {"level": level, "id": unescape(match.group(2)), "name": name, "html": inner,
                 "data-toc-label": "", "children": []}
        title = name if title is None and level == 1 else title
        while stack and stack[-1]["level"] >= level:
            stack.pop()
        (stack[-1]["children"] if stack else tokens).append(token)
        stack.append(token)
    return tokens, title


def _exporter_class():
    """nbconvert's ``HTMLExporter`` with its last step done by ``accessible_html`` (the rest of its
    ``from_notebook_node`` as nbconvert 7.17.2 has it)."""
    from nbconvert.exporters.html import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class TextHTMLExporter(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            language = nb.metadata.get("language_info", {})
            lexer = language.get("pygments_lexer", language.get("name", None))
            self.register_filter("highlight_code", self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
            resources = compat.init_resources(self, resources)
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=compat.notebook_metadata(self), parent=self, resources=resources))
            html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return accessible_html(html), resources

    return TextHTMLExporter


class _Exporter:
    """What ``mkdocs_jupyter.nbconvert2.nb2html`` and the plugin's table of contents make, with one
    exporter made for every notebook (in the converting process)."""

    def __init__(self):
        for package in ("nbconvert", "mkdocs-jupyter"):
            if compat.version_problem(package):
                raise NotebookError(compat.version_problem(package))
        from mkdocs_jupyter import nbconvert2
        from mkdocs_jupyter.config import settings
        from mkdocs_jupyter.preprocessors import SubCell
        from nbconvert.exporters.templateexporter import default_filters

        default_filters["clean_html"] = lambda element: (
            element.decode() if isinstance(element, bytes) else str(element))  # as nb2html sets it
        app = nbconvert2.get_nbconvert_app()
        self.exporter = _exporter_class()(
            config=app.config, template_file="mkdocs_html/notebook.html.j2",
            extra_template_paths=[settings.templates_dir], preprocessors=[SubCell],
            filters={"highlight_code": nbconvert2.mk_custom_highlight_code(extra_css_classes="")},
            theme="", mathjax_url="")

    def convert(self, notebook: Path, data: bytes) -> NotebookHtml:
        """The page of the notebook file ``notebook`` whose bytes, read once, are ``data``: what
        ``from_filename`` of nbconvert 7.17.2 does with the file, done with those bytes."""
        import datetime
        import io

        from mkdocs_jupyter import nbconvert2
        from nbconvert.exporters.exporter import ResourcesDict

        compat.reset_nb2html(nbconvert2)
        modified = datetime.datetime.fromtimestamp(os.path.getmtime(notebook), tz=datetime.UTC)
        metadata, resources = ResourcesDict(), ResourcesDict()  # defaultdicts: no dict to start from
        metadata.update(name=notebook.stem, path=str(notebook.parent), modified_date=modified.strftime("%B %-d, %Y"))
        resources.update(mkdocs={"test": "value", "include_requirejs": False}, metadata=metadata)
        content, resources = self.exporter.from_file(io.StringIO(data.decode("utf-8")), resources=resources)
        content += f'\n        <style>\n        {resources["inlining"]["css"]}\n        </style>\n        '
        content = inline_figures(chapter_ids(content))
        toc_tokens, title = headings(content)
        return NotebookHtml(content, toc_tokens, title)


#: How nbconvert (mkdocs-jupyter) shows an SVG output on a notebook's page: an image of the document.
#: Its attributes come in the order the Markdown renderer wrote them (``src`` before ``alt``), or
#: sorted where a BeautifulSoup pass wrote the page out again: both are read.
_SVG_IMAGE = re.compile(r'<img\b(?=[^>]*\ssrc="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=]+)")'
                        r'(?=(?:[^>]*\salt="(?P<alt>[^"]*)")?)[^>]*>')


def inline_figures(html: str) -> str:
    """A notebook page's HTML with each SVG output, which nbconvert shows as an image, put in as an
    inline figure, as on the chapter's page: the palettes colour it (an image's insides cannot be
    styled) and the figure opens full screen. Its text alternative is the SVG's own label, or the
    image's alt text (a concept diagram's). Each figure's ids get a prefix of their own (``nb0-``,
    ``nb1-``, ...)."""
    numbers = itertools.count()

    def inline(match: re.Match) -> str:
        svg = base64.b64decode(match.group("data")).decode().replace(' id="nb-', f' id="nb{next(numbers)}-')
        if 'role="img"' not in svg[: svg.find(">")]:  # a concept diagram: its alt text is the image's
            svg = labelled(svg, unescape(match.group("alt") or ""))
        return figure_html(svg, "")

    return _SVG_IMAGE.sub(inline, html)


def _write_page(made: NotebookHtml, out: Path) -> None:
    """Write ``made`` to ``out`` with its style sheet in a file of its own next to it
    (``split_stylesheet``; named by its digest, so each notebook's pages share one; written again
    unless it holds exactly that)."""
    content, css = split_stylesheet(made.content)
    stylesheet = ""
    if css:
        stylesheet = f"jupyter-{hashlib.sha256(css.encode()).hexdigest()[:16]}.css"
        sheet = out.parent / stylesheet
        if not sheet.is_file() or sheet.read_bytes() != css.encode():
            write_atomically(sheet, css)
    write_atomically(out, json.dumps({**made.__dict__, "content": content, "stylesheet": stylesheet}))


def main() -> None:
    """The converting process: one JSON request a line on standard input (``notebook``, ``cache``),
    one JSON reply a line on standard output (``{"done": path}`` once the page is written to that
    file in the ``cache`` folder, named by ``page_name`` of the bytes read, or ``{"error": reason}``),
    until its input ends. It imports nbconvert and makes its exporter as it starts (``keep_ready``
    then has it ready). What nbconvert prints goes to standard error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle: this ends with its input
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # nothing but replies on the replies' pipe
    try:
        exporter = _Exporter()
    except Exception:  # noqa: BLE001 - each request says why, below
        exporter = None
    for line in sys.stdin:
        request = json.loads(line)
        try:
            exporter = exporter or _Exporter()
            data = Path(request["notebook"]).read_bytes()
            out = Path(request["cache"]) / page_name(data)
            _write_page(exporter.convert(Path(request["notebook"]), data), out)
            reply = {"done": str(out)}
        except Exception as error:  # noqa: BLE001 - reported to the build, which names the notebook
            reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
            reply = {"error": f"{Path(request['notebook']).name}: {type(error).__name__}: {reason}"}
        try:
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
        except BrokenPipeError:  # the build is gone (ended by a signal): so is whom to tell
            os._exit(0)


if __name__ == "__main__":
    main()
