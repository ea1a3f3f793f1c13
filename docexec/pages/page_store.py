"""Pages' converted HTML kept between builds, so that a page nothing of which changed is not
converted again (a warm build, a ``mkdocs serve`` rebuild after an edit of another page).

What a page's HTML is kept under (``PageStore.key``): its Markdown as the host hands it over,
that Markdown with every include put in by ``pymdownx.snippets`` itself (so every included file,
section, nested include and auto-appended file counts, as the conversion reads them), what the
host names the page by and says the rest depends on (the MkDocs hook: the whole snippet files the
extension reads, the configuration, the site's files and addresses, the loggers' levels, package
versions), Python's version and the code of this package. What it does not see: a change inside a package whose
version stays the same, or in what a function named in the options calls (``make clean``).

The places the Markdown extension left in the HTML (``docexec.pages.places.Place``) are kept with it and
left again in the build that reuses it (``Build.detach``, ``Build.attach``); the outputs and
figures are filled in on every build, as for a page converted anew.

Each page is a file ``<key>.pickle`` in the store's folder, written atomically; one that cannot be
read is converted again. A build removes the ones it did not use (``forget_unused``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import marshal
import pickle
import platform
import re
import sys
import threading
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import markdown

from docexec.core.files import remove_unused, sealed, unsealed, write_atomically
from docexec.pages.places import Place
from docexec.run.cache import CACHE_DIR, source_digest

PAGE_HTML_CACHE = f"{CACHE_DIR}/pages"
SNIPPETS = "pymdownx.snippets"


@dataclass
class ConvertedPage:
    """What converting a page made, as a host keeps it (MkDocs: ``Page.render``).

    Attributes:
        content: the HTML; the extension's places in it are ``<!--docexec-<token>-<n>-->``, ``n``
            indexing ``places`` (``Build.detach``).
        token: the token of those places.
        places: what each place stands for.
        toc_tokens: the table of contents as Python-Markdown's ``toc`` extension lists it
            (``name``, ``id``, ``level``, ``children``).
        title: the title the conversion found (the first ``<h1>``), or None.
        anchors: the ids in the HTML that links may point to.
        links: the links to anchors of other pages: each page's path -> anchor -> the link as written;
            None when the host did not record them.
    """

    content: str
    token: str
    places: list[Place]
    toc_tokens: list[dict]
    title: str | None
    anchors: set[str] = field(default_factory=set)
    links: dict[str, dict[str, str]] | None = None


def parts_digest(parts: Iterable[str]) -> str:
    """One digest of ``parts`` in order, each part's length first (no two lists of parts share one)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


class PageStore:
    """One build's view of the kept pages in ``folder`` (made per build; the folder outlives it).

    Args:
        folder: where the pages are kept.
    """

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.used: set[str] = set()  # file names in folder this build read or wrote
        self.begun = False  # begin was called
        self.common: str | None = None  # what every key of this build shares (begin)
        self._snippets = None  # pymdownx.snippets' preprocessor, configured as the pages' (begin)

    def begin(self, common: Iterable[str] | None, snippets_config: dict | None) -> None:
        """Set what every page's key shares in this build: ``common`` (what the host says a page's
        HTML depends on beyond its Markdown; None: the host cannot say, and no page is kept) and the
        options of ``pymdownx.snippets`` as the pages are converted with them (None: it is not used;
        no page is kept, as what they include would not be known)."""
        self.begun = True
        if common is None:
            return
        self.common = parts_digest([source_digest(), markdown.__version__, platform.python_version(), *common])
        if snippets_config is not None:
            md = markdown.Markdown(extensions=[SNIPPETS], extension_configs={SNIPPETS: snippets_config})
            self._snippets = md.preprocessors["snippet"]

    def key(self, text: str, page: Iterable[str]) -> str | None:
        """What the HTML of the page whose Markdown is ``text`` is kept under: the digest of
        ``common``, ``page`` (what names the page: its path and address), ``text`` and ``text`` with
        its includes put in. None when no key can be made (``begin`` not called, or without
        ``pymdownx.snippets``, or an include it cannot put in: the conversion says why)."""
        if self.common is None or self._snippets is None:
            return None
        try:
            expanded = "\n".join(self._snippets.run(text.split("\n")))
        except Exception:  # noqa: BLE001 - pymdownx.snippets' own errors: converting reports them
            return None
        return parts_digest([self.common, *page, text, expanded])

    def get(self, key: str) -> ConvertedPage | None:
        """The page kept under ``key``, or None (absent or unreadable: it is converted again)."""
        name = f"{key}.pickle"
        try:
            data = unsealed(key, (self.folder / name).read_bytes())
            kept = None if data is None else pickle.loads(data)  # our own cache, written by put, sealed
        except Exception:  # noqa: BLE001 - a broken or old file is a miss, never an error
            return None
        if not isinstance(kept, ConvertedPage):
            return None
        self.used.add(name)
        return kept

    def put(self, key: str, page: ConvertedPage) -> None:
        """Keep ``page`` under ``key`` (atomically; a failed write only loses the copy kept)."""
        name = f"{key}.pickle"
        self.used.add(name)
        with contextlib.suppress(OSError):
            write_atomically(self.folder / name, sealed(key, pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)))

    def forget_unused(self) -> int:
        """Remove the kept pages this build did not use; returns how many."""
        return remove_unused(self.folder, lambda name: name.endswith(".pickle") and name not in self.used)


def stable_text(value) -> str:
    """A value of the Markdown options that JSON has no form for, as the same text in every process:
    a function by its name and the digest of its code (what it calls is not looked into), anything
    else by its ``repr`` without an object's address."""
    if callable(value) and hasattr(value, "__qualname__"):
        code = getattr(value, "__code__", None)
        digest = hashlib.sha256(marshal.dumps(code)).hexdigest() if code is not None else ""
        return f"{getattr(value, '__module__', '')}.{value.__qualname__} {digest}"
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


class _Records(logging.Handler):
    """Keeps every record this thread logs, at the loggers' levels (a verbose build's DEBUG ones
    too); other threads' are not the page's."""

    def __init__(self):
        super().__init__(logging.NOTSET)
        self.thread = threading.get_ident()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            self.records.append(record)


@contextmanager
def logged():
    """The records logged meanwhile (MkDocs' loggers do not propagate to the root logger: both are
    listened to)."""
    handler = _Records()
    loggers = [logging.getLogger("mkdocs"), logging.getLogger()]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


def page_dependencies(config, files, hook: bytes) -> list[str] | None:
    """What a page's HTML depends on besides its Markdown and includes: the Markdown extensions and
    their options, the validation settings, the loggers' levels (what a conversion logs, and so
    whether its page is kept), every file's address and inclusion (links are resolved and checked
    against them), the versions of MkDocs and of the packages of extensions named by module, and
    the hook's code (``hook``). None if the options cannot be written out (JSON refuses them): no page is kept."""
    named = [name for name in config.markdown_extensions if isinstance(name, str) and "." in name]
    packages = sorted({name.split(".")[0] for name in named} | {"mkdocs", "pygments"})
    versions = [f"{name} {getattr(sys.modules.get(name), '__version__', '')}" for name in packages]
    levels = [logging.getLogger(name).getEffectiveLevel() for name in ("", "mkdocs", "mkdocs.structure.pages")]
    try:
        options = json.dumps([config.markdown_extensions, config.mdx_configs], sort_keys=True, default=stable_text)
    except (TypeError, ValueError):  # keys of several types, a circular value
        return None
    return [options, repr(config.validation), repr(levels),
            "\n".join(f"{file.src_uri}\t{file.url}\t{file.inclusion.name}" for file in files), *versions,
            hashlib.sha256(hook).hexdigest()]
