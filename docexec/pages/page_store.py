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
import pickle
import platform
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import markdown

from docexec.core.files import remove_unused, write_atomically
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


def _digest(parts: Iterable[str]) -> str:
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
        self.common = _digest([source_digest(), markdown.__version__, platform.python_version(), *common])
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
        return _digest([self.common, *page, text, expanded])

    def get(self, key: str) -> ConvertedPage | None:
        """The page kept under ``key``, or None (absent or unreadable: it is converted again)."""
        name = f"{key}.pickle"
        try:
            kept = pickle.loads((self.folder / name).read_bytes())  # our own cache, written by put
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
            write_atomically(self.folder / name, pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL))

    def forget_unused(self) -> int:
        """Remove the kept pages this build did not use; returns how many."""
        return remove_unused(self.folder, lambda name: name.endswith(".pickle") and name not in self.used)
