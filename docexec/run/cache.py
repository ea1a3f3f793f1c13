"""A cache of snippet runs that is never stale.

An entry holds one ``RunResult`` (output, print records, graph DOT, error, claim verdicts) as JSON in
``<root>/.cache/docexec/runs/<key>.json``. Its key is the SHA-256 of

* the snippet's path and bytes, and its limits (timeout, memory);
* the installed torch version (read from package metadata, so torch is not imported), the Python
  version, and the bytes of every source file of ``docexec`` itself;

and the entry also records what the run read: the SHA-256 of every repository file it imported or
opened (a helper module next to the snippet, a data file read with ``open``, a helper run with
``runpy``), the repository paths where a module it failed to import would have been found (a
snippet that catches the ``ImportError`` of a helper not written yet) or a file it opened in vain
(one that catches the ``FileNotFoundError`` of a data file not written yet), the names in every
repository folder it listed, the size and modification time of every installed file it opened
(a module of torch imported lazily), and every environment variable it read with its value. Paths
it asked ``os.stat`` about (``os.path.exists``, ``getsize``, ``pathlib``) count as opened. An
entry is used only when all of those still match, so
editing a helper or a data file re-runs exactly the snippets that read it, and adding one re-runs
those that looked for it. What a snippet sees without reading it, the modules the worker imported
before forking (torch), is recorded once per worker (``installation_changed``): if any of them
changed, nothing is taken from the cache. An entry that cannot be read or does not have the
expected shape (a half-written file, a crash mid-write, a hand edit), or that no longer matches
the SHA-256 of its content and key stored in it (a digit edited in an output, a dependency removed,
an entry copied under another key), is ignored and the snippet runs
again; entries are written atomically (a temporary file, then a rename).

Only runs that ended without an error are cached. A timeout or a crash may depend on the machine's
load; an exception may come from a helper module whose import failed, and a module that failed to
import is not among the recorded imports, so fixing it would not make such an entry stale. A run
that failed fails the build anyway: running it again costs a passing build nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from docexec.core.files import PACKAGE_DIR, remove_unused, write_atomically
from docexec.core.records import RunResult, decode, encode
from docexec.run.protocol import worker_environment

CACHE_DIR = ".cache/docexec"
FORMAT = 7
INSTALLATION_DIR = "installation"  # under CACHE_DIR: what each worker imported before forking


def _entry_digest(entry: dict, key: str) -> str:
    """The SHA-256 of an entry (its result and what its run read) and of the key it is stored
    under, kept in it: an entry changed by hand, or copied under another key, no longer matches
    and runs again. It guards against edits and damage, not against someone who recomputes it."""
    return _sha(json.dumps([key, entry], sort_keys=True).encode("utf-8"))


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@lru_cache(maxsize=1)
def environment() -> str:
    """A digest of what every run depends on besides its own files: torch, Python, docexec's code."""
    try:
        torch = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch = "none"
    return _sha(f"{FORMAT}|{torch}|{sys.version}|{source_digest()}".encode())


@lru_cache(maxsize=1)
def source_digest() -> str:
    """The SHA-256 of docexec's source files (every ``.py`` under this package, by relative path),
    read once per process: what runs, kept pages and the like are made by."""
    here = PACKAGE_DIR
    machinery = hashlib.sha256()
    for path in sorted(here.rglob("*.py")):
        machinery.update(path.relative_to(here).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return machinery.hexdigest()


class RunCache:
    """Read and write cached runs under ``root/.cache/docexec``.

    Args:
        root: the repository root; dependency paths in entries are relative to it.
    """

    def __init__(self, root: Path):
        self.root = Path(root).resolve()
        self.folder = self.root / CACHE_DIR / "runs"
        self.environment = worker_environment(os.environ)  # what a snippet this build runs sees

    def key(self, path: str, options: dict, data: bytes | None = None) -> str:
        """The key of ``path`` with the bytes ``data`` (default: as it is now on disk), its limits and
        the environment."""
        if data is None:
            data = (self.root / path).read_bytes()
        return _sha(b"|".join([environment().encode(), path.encode(), json.dumps(options, sort_keys=True).encode(),
                               data]))

    # Paths below are joined as strings: a warm build looks up every snippet, and pathlib's parsing
    # of each path cost more than reading the entry.

    def has(self, key: str) -> bool:
        """Whether an entry is stored under ``key``; it may still turn out stale or damaged (``get``)."""
        return os.path.isfile(os.path.join(self.folder, f"{key}.json"))

    def get(self, path: str, key: str) -> RunResult | None:
        """The cached result of ``path`` under ``key`` (from ``key()``) if it is valid now, else None.

        A damaged or foreign entry also gives None.
        """
        try:
            with open(os.path.join(self.folder, f"{key}.json"), encoding="utf-8") as handle:
                data = json.loads(handle.read())
            if data.get("format") != FORMAT or data.get("path") != path:
                return None
            if data.pop("digest", None) != _entry_digest(data, key) or not self._unchanged(data):
                return None
            result = decode(data["result"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        result.cached = True
        return result

    def _unchanged(self, data: dict) -> bool:
        """Whether everything an entry's run read is as it was: repository files (by content),
        paths where an import or an open looked in vain (still absent), folders it listed (same names),
        installed files it opened (same size and modification time) and environment variables it
        read (the same value, or still unset, in the environment a worker started now gets)."""
        for dep, digest in data["deps"].items():
            with open(os.path.join(self.root, dep), "rb") as handle:
                if _sha(handle.read()) != digest:
                    return False
        if any(os.path.lexists(os.path.join(self.root, path)) for path in data["absent"]):
            return False
        if any(_listing(os.path.join(self.root, folder)) != digest for folder, digest in data["listed"].items()):
            return False
        if not all(_stat(path) == tuple(stat) for path, stat in data["installed"].items()):
            return False
        return all(self.environment.get(name) == value for name, value in data["env"].items())

    def installation_changed(self) -> bool:
        """Whether a module a worker imported before forking (torch and what it imports, recorded by
        ``docexec.run.worker.preload.record_installation``) has changed size or modification time since: then
        no entry may be trusted, as a snippet sees those modules without importing them itself."""
        folder = self.root / CACHE_DIR / INSTALLATION_DIR
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return False
        for name in names:
            try:
                with open(folder / name, encoding="utf-8") as handle:
                    recorded = json.load(handle)
            except (OSError, ValueError):
                return True
            if any(_stat(path) != tuple(stat) for path, stat in recorded.items()):
                return True
        return False

    def put(self, result: RunResult, key: str) -> None:
        """Store ``result`` under ``key`` (computed before the run) with digests of its imported files.

        Results of runs that failed (an exception, a timeout, a crash) are not stored (see the
        module's docstring).
        """
        if not result.ok:
            return
        digests = {}
        for dep in sorted(set(result.reads.deps)):
            try:
                digests[dep] = _sha((self.root / dep).read_bytes())
            except OSError:
                return  # a dependency vanished meanwhile: do not cache what cannot be checked later
        reads = result.reads
        listed = {folder: _listing(os.path.join(self.root, folder)) for folder in sorted(set(reads.listed))}
        entry = {"format": FORMAT, "path": result.path, "deps": digests, "absent": sorted(set(reads.absent)),
                 "listed": listed, "installed": reads.installed, "env": reads.env, "result": encode(result)}
        entry["digest"] = _entry_digest(entry, key)
        write_atomically(self.folder / f"{key}.json", json.dumps(entry))

    def prune(self, keep: set[str], folder: str, stale_after: float = 600.0) -> int:
        """Remove every entry of a snippet under ``folder`` whose key is not in ``keep`` (entries of
        snippets, helpers or versions as they no longer are), every entry that cannot be read, and
        temporary files older than ``stale_after`` seconds (left by a process that died mid-write;
        younger ones may still be being written). Entries of snippets in other folders (another
        session on the same root, such as the tests' fixtures) are left alone.

        Args:
            keep: the keys to keep (``key()``), normally those of every snippet of a full run.
            folder: the snippets folder of that run, relative to the root (``snippets``).
            stale_after: age in seconds after which a temporary file is removed.

        Returns:
            How many files were removed. A file removed meanwhile by another process is skipped.
        """
        prefix = f"{folder.rstrip('/')}/"

        def unused(name: str) -> bool:
            if not name.endswith(".json") or name[: -len(".json")] in keep:
                return False
            owner = _entry_path(self.folder / name)
            return owner is None or owner.startswith(prefix)

        return remove_unused(self.folder, unused, stale_after)


def _listing(folder: str) -> str | None:
    """A digest of the names in ``folder`` (None if it cannot be listed)."""
    try:
        return _sha("\0".join(sorted(os.listdir(folder))).encode())
    except OSError:
        return None


def _stat(path: str) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of ``path``, or None if it is gone."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


_PATH_FIELD = re.compile(rb'"path": ("(?:[^"\\]|\\.)*")')


def _entry_path(entry: Path) -> str | None:
    """The snippet path an entry file was written for (``put`` writes it near the start), or None
    when the file cannot be read as an entry."""
    try:
        with open(entry, "rb") as handle:
            match = _PATH_FIELD.search(handle.read(4096))
        return json.loads(match.group(1)) if match else json.loads(entry.read_text(encoding="utf-8"))["path"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
