"""Writing files so that a crash or a failure never leaves a half-written one."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

#: docexec's own folder, and the folder it is imported from (the repository root, or site-packages).
PACKAGE_DIR = Path(__file__).resolve().parents[1]
IMPORT_DIR = PACKAGE_DIR.parent
#: Where the standard library's code lives (``os`` is frozen in Python 3.11): the worker skips its
#: frames to find who read an environment variable, and never takes its functions for hooks.
STDLIB = (os.path.join(sysconfig.get_paths()["stdlib"], ""), "<frozen ")


def write_atomically(path: str | os.PathLike, data: str | bytes) -> None:
    """Replace ``path`` with ``data`` (text is written as UTF-8, line endings as given): a reader
    sees the old file or the new one, never part of either.

    The data goes to a temporary file in the same folder (same file system), which is then renamed
    over ``path`` (``os.replace``, atomic on POSIX: https://docs.python.org/3/library/os.html#os.replace).
    Missing parent folders are made. If writing fails, the temporary file is removed and ``path``
    is left as it was.

    Raises:
        OSError: the folder cannot be made (its ``filename`` is the folder) or written to (a full
            disk, no permission, a folder where the file should be: its ``filename`` is ``path``,
            whichever step failed, never the temporary file).
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)  # its error names the folder in the way
    try:
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise _naming(error, target) from error
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(temp, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise _naming(error, target) from error
        raise


def _naming(error: OSError, target: Path) -> OSError:
    """``error`` as the same kind of error (``OSError(errno, ...)`` makes ``IsADirectoryError`` and
    the rest) with ``target`` as its file; one without an errno is kept as it is."""
    if error.errno is None:
        return error
    return OSError(error.errno, error.strerror or str(error), str(target))


def remove_unused(folder: Path, unused: Callable[[str], bool], stale_after: float = 600.0) -> int:
    """Remove the files in ``folder`` whose name ``unused`` accepts, and temporary files (``*.tmp``,
    from an atomic write) older than ``stale_after`` seconds: left by a process that died mid-write,
    while younger ones may still be being written. Shared by the run cache and the figure cache.

    Returns:
        How many files were removed; a file removed meanwhile by another process is skipped.
    """
    removed = 0
    now = time.time()
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        path = os.path.join(folder, name)
        try:
            if name.endswith(".tmp") and now - os.stat(path).st_mtime > stale_after or unused(name):
                os.unlink(path)
                removed += 1
        except OSError:
            continue
    return removed


def link_copy(source: Path, target: Path) -> None:
    """Make ``target`` hold the files of ``source`` (hard links: MkDocs writes each build's files
    anew, so a link keeps the old content)."""
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(source, target, copy_function=os.link, dirs_exist_ok=True)


def seal(key: str, data: bytes) -> bytes:
    """A line holding the SHA-256 of ``key`` and ``data``: kept with a cache file, it tells one
    changed by hand, cut short or copied under another key (a miss, then). It guards against edits
    and damage, not against someone who recomputes it."""
    digest = hashlib.sha256(key.encode() + b"\0" + data).hexdigest()
    return f"sha256 {digest}\n".encode()


def sealed(key: str, data: bytes) -> bytes:
    """``data`` after its ``seal`` line (``unsealed`` checks it)."""
    return seal(key, data) + data


def unsealed(key: str, stored: bytes) -> bytes | None:
    """The data ``sealed(key, ...)`` stored, or None when it no longer matches its seal."""
    head, _, data = stored.partition(b"\n")
    return data if head + b"\n" == seal(key, data) else None
