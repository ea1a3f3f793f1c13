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
* conversions run in a process of their own (``Converter``, ``python -m docexec.notebooks.convert``),
  started when a first notebook needs converting: the build goes on with its Markdown pages
  meanwhile, and nothing of nbconvert or mkdocs-jupyter is imported by the build's process;
* that process keeps one exporter for every notebook, and under ``mkdocs serve`` for every rebuild;
* the last step of nbconvert's ``HTMLExporter`` (alternative text for images that have none, and
  ``tabindex="0"`` on cells' inputs and outputs, done by parsing the whole page with BeautifulSoup
  and writing it out again: two thirds of a conversion) is done on the text
  (``docexec.notebooks.convert.accessible_html``): BeautifulSoup reads the result as the very tree
  nbconvert writes out (tested), in a third of the time;
* the table of contents and the title come from the headings of the page's HTML (``convert.headings``):
  the plugin makes them from a Markdown copy of the notebook without its inline code, so that a
  heading with code lost that code in the contents and the title, and its link missed the
  heading's id; the headings' ids are the ones the chapter page gives them (``convert.chapter_ids``);
* each figure, which nbconvert shows as an image, is put in as an inline SVG figure, as on the
  chapter's page (``convert.inline_figures``), once, with the rest of the conversion;
* the style sheets nbconvert's template puts in every page (JupyterLab's theme and the code
  highlighting, about 590 kB, the same on every notebook page) are one file, ``stylesheet``, that
  each page links to in their place (``split_stylesheet``): a reader's browser loads them once.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import weakref
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

from docexec.core.files import IMPORT_DIR, remove_unused, unsealed

#: The module the converting process runs: the rest of the converting code.
CONVERT = Path(__file__).with_name("convert.py")

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
    """A digest of what converts a notebook besides its bytes: this module's code and ``convert``'s, that of the
    figures it puts in (``docexec.pages.render``), and the installed versions of ``CONVERTING_PACKAGES``
    (looked up once per process)."""
    from importlib import metadata

    from docexec.pages import render

    digest = hashlib.sha256(b"\0".join(Path(path).read_bytes() for path in (__file__, CONVERT, render.__file__)))
    for name in CONVERTING_PACKAGES:
        try:
            digest.update(f"\0{name}={metadata.version(name)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"\0{name} absent".encode())
    return digest.hexdigest().encode()


def _read(path: Path) -> NotebookHtml | None:
    """The page kept in the file ``path``, or None if it is absent, broken or no longer matches its
    seal (``core.files.sealed``: changed by hand, or copied under another name): converted again."""
    try:
        page = unsealed(path.name, path.read_bytes())
        return NotebookHtml(**json.loads(page)) if page is not None else None
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
        """Start the process now if it is not running; it imports nbconvert, makes its exporter and
        a first conversion at once (``mkdocs serve``: the first notebook an edit changes is then
        converted without waiting for any of them).

        Raises:
            NotebookError: the process could not be started.
        """
        with self._lock:
            self._running(warm=True)

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

    def _running(self, warm: bool = False) -> subprocess.Popen:
        """The process, started if it is not running (called with the lock held); ``warm``: it makes
        a first conversion as it starts (a build's first conversion would make that one)."""
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(
                [str(IMPORT_DIR)] + ([os.environ["PYTHONPATH"]]
                                                                 if os.environ.get("PYTHONPATH") else [])))
            try:
                self._proc = subprocess.Popen([sys.executable, "-m", "docexec.notebooks.convert"]
                                              + (["--warm"] if warm else []), cwd=self.root,
                                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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
