"""``mkdocs serve``'s rebuilds: the last good build stays on show while an edit fails the build, with
a banner on every page that names the problems, until a build succeeds."""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from collections.abc import Callable
from html import escape
from pathlib import Path

from docexec.core.files import link_copy, write_atomically

#: The class of the banner a failed rebuild puts on the pages (styled by docs/stylesheets/extra.css).
BANNER = "docexec-failed-build"


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
        try:
            builder(config)
        except Exception as error:  # noqa: BLE001 - any failure: the server keeps the last good build
            report(error)
            link_copy(kept, site)
            show_failure(site, getattr(error, "lines", None) or [str(error) or type(error).__name__])
            report("the rebuild failed (see above); the server keeps showing the last good build")
        else:
            link_copy(site, kept)

    return rebuild


def show_failure(site: Path, lines: list[str]) -> None:
    """Put a banner that names ``lines`` (``file:line: reason``) at the top of every page of ``site``,
    which the reader can close. Each page is written anew: the kept build's hard links keep their
    bytes, and the next good build has no banner."""
    items = "".join(f"<li><code>{escape(line)}</code></li>" for line in lines)
    banner = (f'<div class="{BANNER}" role="alert"><p><strong>The last edit failed the build.</strong> This is '
              f"the last good build; fix these and save:</p><ul>{items}</ul>"
              '<button type="button" onclick="this.parentElement.remove()">Close</button></div>')
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        body = re.search(r"<body\b[^>]*>", text)
        if body is not None:
            write_atomically(page, text[: body.end()] + banner + text[body.end():])
