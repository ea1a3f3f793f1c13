"""``mkdocs serve``'s rebuilds: the last good build stays on show while an edit fails the build, with
a banner on every page that names the problems, until a build succeeds; a page the edit did not
change is not read again for the search index (``SearchEntries``)."""

from __future__ import annotations

import atexit
import copy
import gc
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from html import escape
from pathlib import Path

from jinja2 import FileSystemLoader
from jinja2.bccache import Bucket, BytecodeCache

from docexec.core.files import link_copy, write_atomically
from docexec.host.build import ANY_PLACE
from docexec.pages.page_store import parts_digest

#: The class of the banner a failed rebuild puts on the pages (styled by docs/stylesheets/extra.css).
BANNER = "docexec-failed-build"
#: The most problem lines a banner lists; the terminal has them all.
BANNER_LINES = 10


def freeze_what_lasts() -> None:
    """After the first build of ``mkdocs serve``: collect, then move every object still alive (the
    modules, templates and caches the server keeps) to the collector's permanent generation
    (``gc.freeze``). The full collections that rebuilds trigger then scan only what later builds
    made: on this site one rebuild in three paid one, 0.06 to 0.12 s of the rebuild, before; 0.03
    to 0.05 s after. What the first build leaves that becomes garbage in a cycle later stays in
    memory, once."""
    gc.collect()
    gc.freeze()


class _Said(logging.Handler):
    """The warnings and errors the host logs while a build runs (a strict build fails on a warning
    whose text is only in the log)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage().strip())


def keeping_last_good(site: Path, builder: Callable,
                      report: Callable[[Exception | str], None]) -> Callable:
    """A rebuild that calls ``builder``. When it fails, ``report`` gets the error, then a line
    saying so, and ``site`` is given back the files of the last good build. MkDocs empties the
    site folder as a build starts and, after a failed one, holds every request until a build
    succeeds; each good build is kept (as hard links, so keeping costs no copying). The site as it
    is now is the first good build (the server would not have started otherwise)."""
    kept = Path(tempfile.mkdtemp(prefix="docexec-last-good-"))
    atexit.register(shutil.rmtree, kept, True)
    link_copy(site, kept)

    def rebuild(config=None):
        said, host = _Said(), logging.getLogger("mkdocs")
        host.addHandler(said)
        try:
            builder(config)
        except Exception as error:  # noqa: BLE001 - any failure: the server keeps the last good build
            report(error)
            link_copy(kept, site)
            show_failure(site, failure_lines(said.lines, error))
            report("the rebuild failed (see above); the server keeps showing the last good build")
        else:
            link_copy(site, kept)
        finally:
            host.removeHandler(said)

    return rebuild


def failure_lines(said: list[str], error: Exception) -> list[str]:
    """What a failed build's banner lists: the warnings and errors logged while it ran (each
    problem's ``file:line: reason`` among them), then what the error itself says, each once. A
    logged line that repeats one of the error's lines inside more text (the same problem with a
    prefix, or the build's summary, which quotes it) is left out: the banner said it three times."""
    own = getattr(error, "lines", None) or [f"{type(error).__name__}: {error}" if str(error) else type(error).__name__]
    logged = [line for line in said if not any(mine and mine in line and mine != line for mine in own)]
    return list(dict.fromkeys(line for line in logged + own if line))


def show_failure(site: Path, lines: list[str]) -> None:
    """Put a banner that names ``lines`` (``file:line: reason``, at most ``BANNER_LINES``) on every
    page of ``site``, at the foot of the window, with its Close button first. Each page is written
    anew, with its mode: the kept build's hard links keep their bytes, and the next good build has
    no banner."""
    items = "".join(f"<li><code>{escape(line)}</code></li>" for line in lines[:BANNER_LINES])
    if len(lines) > BANNER_LINES:
        items += f"<li>and {len(lines) - BANNER_LINES} more: see the terminal</li>"
    banner = (f'<div class="{BANNER}" role="alert"><button type="button" onclick="this.parentElement.remove()">'
              "Close</button><p><strong>The last edit failed the build.</strong> This is the last good build; "
              f"fix these and save:</p><ul>{items}</ul></div>")
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        body = re.search(r"<body\b[^>]*>", text)
        if body is not None:
            mode = page.stat().st_mode
            write_atomically(page, text[: body.end()] + banner + text[body.end():])
            os.chmod(page, mode)


class SearchEntries:
    """The search index entries each page gave in the last build of this process, given again while
    the page is the same.

    Material's search plugin parses the HTML of every page in every build (about 1 s for this
    site, a third of a rebuild under ``mkdocs serve``, where an edit changes one page). What it
    makes of a page (``SearchIndex.add_entry_from_context``) depends on the page's content,
    address, title, table of contents and metadata only: with those the same, the entries are too.
    """

    def __init__(self) -> None:
        self.kept: dict[str, tuple[str, list[dict]]] = {}  # page address -> (its key, its entries)

    @staticmethod
    def key(page) -> str:
        """What the entries of ``page`` (an MkDocs ``Page``) depend on, as a digest. The places a
        build fills later are left out (``ANY_PLACE``): comments, which the index does not read, that
        name the build. Any other change to the content, comments included, makes a new key."""
        parts = (ANY_PLACE.sub("", page.content or ""), page.url, str(page.title), str(page.toc),
                 repr(sorted(page.meta.items())))
        return parts_digest(parts)

    def add(self, index, page, add_entries: Callable) -> None:
        """Add the entries of ``page`` to ``index`` (a ``SearchIndex``): kept ones if the page is
        the same as last time, else those ``add_entries(index, page)`` adds (then kept)."""
        key = self.key(page)
        kept = self.kept.get(page.url)
        if kept is not None and kept[0] == key:
            index.entries.extend(copy.deepcopy(kept[1]))
            return
        start = len(index.entries)
        add_entries(index, page)
        self.kept[page.url] = (key, copy.deepcopy(index.entries[start:]))


class ThemeListing:
    """The names of the theme's templates, listed once per process in the theme's installed folders.

    MkDocs copies a theme's static files into every build, finding them by listing every template
    of the theme (``Files.add_files_from_theme``, through the environment's loader): Material's
    folder holds 14,500 files, most of them icons, and listing it took about 0.05 s of each rebuild.
    An installed theme changes only when it is installed again, which a running server does not
    see anyway; the theme's ``custom_dir`` (the project's own templates) is listed every time."""

    def __init__(self) -> None:
        self.names: dict[str, list[str]] = {}  # installed folder -> its templates' names

    def loader(self, loader: FileSystemLoader, custom_dir: str | None) -> FileSystemLoader:
        """A loader of the same folders as ``loader`` whose listing of templates is kept."""
        listing, fresh = self, {os.path.abspath(custom_dir)} if custom_dir else set()

        class ListedOnce(FileSystemLoader):
            def list_templates(self) -> list[str]:
                found: set[str] = set()
                for folder in self.searchpath:
                    found.update(listing.names_in(folder, self.followlinks, keep=os.path.abspath(folder) not in fresh))
                return sorted(found)

        return ListedOnce(loader.searchpath, loader.encoding, loader.followlinks)

    def names_in(self, folder: str, followlinks: bool, keep: bool) -> list[str]:
        """The names of the templates under ``folder`` (``a/b.html``), as Jinja2's
        ``FileSystemLoader.list_templates`` makes them; kept if ``keep``."""
        if folder in self.names:
            return self.names[folder]
        names = []
        for base, _, files in os.walk(folder, followlinks=followlinks):
            names += [os.path.join(base, name)[len(folder):].strip(os.sep).replace(os.sep, "/").removeprefix("./")
                      for name in files]
        if keep:
            self.names[folder] = names
        return names


class TemplateCache(BytecodeCache):
    """The theme's templates as Jinja2 compiled them, kept in memory between the builds of one
    process (Jinja2's bytecode cache, https://jinja.palletsprojects.com/en/stable/api/#bytecode-cache):
    under ``mkdocs serve`` every rebuild makes a new template environment, which compiled every
    template again (about a fifth of a rebuild). Jinja2 compares each template's source with the
    checksum kept with its code, so an edited template is compiled anew."""

    def __init__(self) -> None:
        self.code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.code:
            bucket.bytecode_from_string(self.code[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.code[bucket.key] = bucket.bytecode_to_string()
