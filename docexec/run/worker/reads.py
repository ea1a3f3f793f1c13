"""What an example read, for the run cache (``docexec.run.cache``): the files it opened and the
folders it listed (audit events), the repository modules it imported, and where imports looked in
vain."""

from __future__ import annotations

import functools
import importlib
import importlib.machinery
import os
import shlex
import shutil
import sys

from docexec.core.files import PACKAGE_DIR, STDLIB
from docexec.run.worker.preload import INHERITED_ENVIRONMENT


class FileReads:
    """The files a snippet opened and the folders it listed, seen through the interpreter's audit
    events (https://docs.python.org/3/library/audit_events.html): ``open`` (``open()``, and
    ``io.open_code``, through which imports and ``runpy`` read code), ``os.listdir`` /
    ``os.scandir`` (``glob`` and ``pathlib`` list through them), and the programs it started
    (``subprocess.Popen``, ``os.system``, ``os.exec``, ``os.posix_spawn``, ``os.spawn``): the
    program and every argument that names an existing file count as opened, since the program
    will most likely read them. What a run read decides whether its cached result still holds
    (``docexec.run.cache``). What a program reads beyond its arguments, and what C code opens without
    Python (``torch.from_file``), is not seen. An audit hook cannot be removed, so this records
    only while ``on``."""

    #: Audit events that start a program, and the index of its argument list (or command string).
    STARTS = {"subprocess.Popen": 1, "os.system": 0, "os.exec": 1, "os.posix_spawn": 1, "os.spawn": 2}

    def __init__(self) -> None:
        self.on = False
        self.opened: set[str] = set()
        self.listed: set[str] = set()
        self.asked: set = set()  # paths asked about (``os.stat``), as given: made absolute at the end
        self.env: dict[str, str | None] = {}  # variables the snippet read, as they were (None: unset)
        self._set: set[str] = set()  # variables the snippet set itself: what it reads of them is its own
        self._prefix, self._display = "", ""  # the repository (``watch``): whose reads of a variable count

    def watch(self, root: str, display: str) -> None:
        """Also note what no audit event reports (in this process, which runs one snippet): every
        path ``os.stat``, ``os.lstat`` and ``os.access`` are asked about (``os.path.exists``,
        ``isfile``, ``getsize``, ``pathlib``'s ``exists`` and ``stat`` go through them): a file as if opened, a
        path that does not exist as if an open looked for it in vain (a folder's answer is not kept:
        whether it exists, not what it holds, and a build adds folders to the repository), and every
        environment variable the snippet or a repository file (``display``, under ``root``) reads
        through ``os.environ`` by name (``os.getenv``, ``in``, ``get``; not a copy of it all, or
        its ``items()``, which a snippet hands to a child process). What an installed library reads
        (torch reads its own variables, mostly as it is imported, before the snippet) is not
        noted: the worker's process sets some of those itself."""
        self._prefix, self._display = os.path.join(root, ""), display
        for name in ("stat", "lstat", "access"):
            setattr(os, name, self._asking(getattr(os, name)))
        reads = self

        class Environ(type(os.environ)):
            def __getitem__(self, key):
                try:
                    value = super().__getitem__(key)
                except KeyError:
                    reads._read_env(key, None)
                    raise
                reads._read_env(key, value)
                return value

            def __setitem__(self, key, value):
                reads._set.add(key)
                super().__setitem__(key, value)

            def __delitem__(self, key):
                reads._set.add(key)
                super().__delitem__(key)

        Environ.__name__ = Environ.__qualname__ = "_Environ"  # what type(os.environ) says under python
        Environ.__module__ = "os"
        os.environ.__class__ = Environ

    def _read_env(self, key, value) -> None:
        if self.on and isinstance(key, str) and key not in self._set and key not in self.env:
            frame = sys._getframe(2)
            while frame is not None and frame.f_code.co_filename.startswith(STDLIB):  # os.getenv, Mapping.get
                if frame.f_code.co_name in _WHOLE:  # the whole environment, for a child process, say
                    return
                frame = frame.f_back
            if frame is not None and _is_local(frame.f_code.co_filename, self._prefix, self._display) \
                    and INHERITED_ENVIRONMENT.get(key) == value:  # not set by the worker's own imports
                self.env[key] = value

    def _asking(self, original):
        @functools.wraps(original)
        def asked(path, *args, **kwargs):
            if self.on and kwargs.get("dir_fd") is None and isinstance(path, (str, bytes, os.PathLike)):
                self.asked.add(path if type(path) is str else os.fsdecode(path))  # torch asks often: kept cheap
            return original(path, *args, **kwargs)

        return asked

    def __call__(self, event: str, args: tuple) -> None:
        if not self.on:
            return
        if event in self.STARTS:
            self._started(event, args)
            return
        if event not in ("open", "os.listdir", "os.scandir"):
            return
        path = args[0] if args else None
        if event != "open" and path is None:
            path = "."
        if isinstance(path, (str, bytes)):
            (self.opened if event == "open" else self.listed).add(os.path.abspath(os.fsdecode(path)))

    def _started(self, event: str, args: tuple) -> None:
        """Note the program and the file arguments of a program the snippet started."""
        try:
            given = args[self.STARTS[event]]
            words = shlex.split(os.fsdecode(given)) if isinstance(given, (str, bytes)) else list(given or ())
            if event == "subprocess.Popen" and args[0] is not None:
                words.insert(0, args[0])
            cwd = args[2] if event == "subprocess.Popen" and args[2] is not None else os.getcwd()
            words = [os.fsdecode(w) for w in words if isinstance(w, (str, bytes, os.PathLike))]
            for at in range(len(words) - 2):  # shell=True runs [executable, /bin/sh, -c, command line]
                if words[at + 1] == "-c" and os.path.basename(words[at]) in _SHELLS:
                    words[at + 2:at + 3] = shlex.split(words[at + 2])  # the command line's own words
                    break
            for word in words:
                path = os.path.join(os.fsdecode(cwd), word)
                if os.path.isdir(path):
                    self.listed.add(os.path.abspath(path))
                    continue
                found = path if os.path.isfile(path) else shutil.which(word)
                if found:
                    self.opened.add(os.path.abspath(found))
        except (ValueError, TypeError, IndexError, OSError):  # a command shlex cannot split, odd arguments
            pass

    def sorted_out(self, root: str, workdir: str, display: str) -> dict:
        """What the end status carries: repository files opened (``read``), repository paths an
        open looked for in vain, which do not exist at the end (``absent``: the example caught the
        ``FileNotFoundError``; the file appearing later changes what it does), repository folders
        listed (``listed``), all relative to ``root``, and every other file opened that still
        exists (``installed``: absolute path -> [size, mtime_ns]; the Python installation's files
        and any other, such as a data file elsewhere on the machine), leaving out the snippet's own
        file, its working folder and the kernel's pseudo-files (/proc, /sys, /dev); and the
        environment variables it read (``env``: name -> value, None where unset)."""
        prefix, scratch = os.path.join(root, ""), os.path.join(workdir, "")
        own = {os.path.join(root, display)}
        asked = {os.path.abspath(path) for path in self.asked}  # from the working folder, as asked (mostly)
        self.opened |= {path for path in asked if not os.path.isdir(path)}
        local = [p for p in self.opened if _is_local(p, prefix, "") and p not in own and not p.startswith(scratch)]
        read = sorted(relative(p, root) for p in local if os.path.isfile(p))
        absent = sorted(relative(p, root) for p in local if not os.path.lexists(p))
        listed = sorted(relative(p, root) for p in self.listed | {p for p in self.opened if os.path.isdir(p)}
                        if (p + os.sep).startswith(prefix) and _is_local(p + os.sep, prefix, "")
                        and not (p + os.sep).startswith(scratch))
        installed = {}
        for path in sorted(self.opened):
            if path.startswith(prefix) and not _installed(path) or path.startswith(scratch) or _pseudo(path):
                continue
            try:
                stat = os.stat(path)
            except OSError:
                continue
            if os.path.isfile(path):
                installed[path] = [stat.st_size, stat.st_mtime_ns]
        return {"read": read, "absent": absent, "listed": listed, "installed": installed, "env": self.env}



#: Functions that read every variable (``os.environ.copy()``, ``.items()``): not noted one by one.
_WHOLE = {"__iter__", "copy", "__repr__"}

#: Shells whose ``-c`` argument is a command line (``subprocess.run(..., shell=True)`` runs ``/bin/sh -c``).
_SHELLS = {"sh", "bash", "dash", "zsh"}


def _pseudo(path: str) -> bool:
    """Whether ``path`` is one of the kernel's pseudo-files, whose size and time say nothing."""
    return path.startswith(("/proc/", "/sys/", "/dev/"))


def _installed(path: str) -> bool:
    """Whether ``path`` belongs to the Python installation (the standard library or an installed package)."""
    return any(path.startswith(os.path.join(place, "")) for place in {sys.prefix, sys.base_prefix, sys.exec_prefix})


class ImportReads:
    """A ``sys.meta_path`` finder that finds nothing and records the name of every module looked up
    for the first time (https://docs.python.org/3/reference/import.html#the-meta-path), and which of
    those the snippet or a repository file asked for (the first caller outside the import system).

    Recording imports as they happen, rather than comparing ``sys.modules`` before and after, keeps a
    child from touching every module name it inherited: each touch would copy a memory page that
    the child otherwise shares with the worker.
    """

    def __init__(self, root: str = "", display: str = "") -> None:
        self.names: list[str] = []
        self.asked_locally: list[str] = []  # names the snippet or a repository file imported
        self.modules_before = 0  # len(sys.modules) when recording started
        self.display = display
        self.prefix = os.path.join(root, "") if root else None

    def find_spec(self, name, path=None, target=None):  # noqa: ARG002 - the finder protocol
        self.names.append(name)
        if self.prefix is not None:
            frame = sys._getframe(1)
            while frame is not None and (frame.f_code.co_filename.startswith("<frozen ")
                                         or frame.f_code.co_filename == importlib.__file__):
                frame = frame.f_back
            if frame is not None and _is_local(frame.f_code.co_filename, self.prefix, self.display):
                self.asked_locally.append(name)
        return None


#: docexec's own folder: its modules are never a snippet's dependencies.
_OWN_DIR = os.path.join(str(PACKAGE_DIR), "")


def _is_local(path: str, prefix: str, display: str) -> bool:
    """Whether ``path`` (a module's file) is the snippet (``display``) or another repository file
    under ``prefix`` (the root): not docexec itself, not an installed package."""
    return path == display or (path.startswith(prefix) and not path.startswith(_OWN_DIR)
                               and "site-packages" not in path and not path.startswith(prefix + ".venv" + os.sep))


def relative(path: str, root: str) -> str:
    """``path`` relative to ``root``, with ``/`` separators: how results name repository files."""
    return os.path.relpath(path, root).replace(os.sep, "/")


def local_modules(root: str, display: str, names: list[str]) -> list[str]:
    """Repository files among the modules ``names`` (not installed packages, not docexec itself,
    not the snippet)."""
    found = set()
    prefix = os.path.join(root, "")
    for name in dict.fromkeys(names):
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if _is_local(path, prefix, display) and os.path.isfile(path):
            rel = relative(path, root)
            if rel != display:
                found.add(rel)
    return sorted(found)


def _import_places(name: str) -> list[str]:
    """The folders an import of ``name`` looks in: the parent package's ``__path__``, else ``sys.path``."""
    parent, _, _ = name.rpartition(".")
    if parent:
        return list(getattr(sys.modules.get(parent), "__path__", None) or [])
    return [place for place in sys.path if place]


def missing_modules(root: str, names: list[str]) -> tuple[list[str], list[str]]:
    """Where in the repository the modules ``names`` that failed to import would be found.

    For each name not in ``sys.modules`` (its import raised, perhaps caught by the snippet), every
    place the import system looked under the root: ``<dir>/<name>`` plus each module suffix
    (``importlib.machinery.all_suffixes()``), and the package directory ``<dir>/<name>`` (its
    ``__init__`` file if it exists), for each ``<dir>`` of ``_import_places``. Imports made by code
    compiled from a string (``exec``) are not seen.

    Returns:
        ``(files, absent)``: repository paths, relative to ``root``, of files that exist (the module
        is there but its import raised: its bytes matter) and of paths that do not exist (creating
        one would change what the import finds).
    """
    files, absent = set(), set()
    prefix = os.path.join(root, "")
    suffixes = importlib.machinery.all_suffixes()
    for name in dict.fromkeys(names):
        if name in sys.modules:
            continue
        for place in map(os.path.abspath, _import_places(name)):
            if _is_local(os.path.join(place, ""), prefix, ""):
                _look_in(place, name.rpartition(".")[2], suffixes, root, files, absent)
    return sorted(files), sorted(absent)


def _look_in(place: str, last: str, suffixes: list[str], root: str, files: set, absent: set) -> None:
    """Add to ``files`` what exists and to ``absent`` what does not among the places the import
    system looks for module ``last`` in the folder ``place``: a file per suffix, the package folder
    and its ``__init__`` files (a package whose ``__init__`` raised: its bytes matter)."""
    for candidate in (os.path.join(place, last + suffix) for suffix in suffixes):
        if os.path.isfile(candidate):
            files.add(relative(candidate, root))
        elif not os.path.lexists(candidate):
            absent.add(relative(candidate, root))
    package = os.path.join(place, last)
    if not os.path.lexists(package):
        absent.add(relative(package, root))
        return
    for init in (os.path.join(package, "__init__" + suffix) for suffix in suffixes):
        if os.path.isfile(init):
            files.add(relative(init, root))
