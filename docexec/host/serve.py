"""``mkdocs serve``'s rebuilds: the last good build stays on show while an edit fails the build."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from docexec.core.files import link_copy


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
            report("the rebuild failed (see above); the server keeps showing the last good build")
        else:
            link_copy(site, kept)

    return rebuild
