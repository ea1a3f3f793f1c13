"""The execution worker: imports torch once, then runs each snippet in a forked child.

Run as ``python -m docexec.worker``. It reads one JSON request from standard input::

    {"root": "/abs/repo", "jobs": 2, "timeout": 30.0, "memory_mb": 4096,
     "options": {"snippets/x/slow.py": {"timeout": 120, "memory_mb": 8192}},
     "groups": [{"preload": [], "snippets": ["snippets/computational-graph/opt_in.py", ...]},
                {"preload": ["torch._dynamo"], "snippets": ["snippets/backward-pass/sgd_step.py"]}]}

``timeout`` is in seconds of wall-clock time, ``memory_mb`` in MiB of address space on top of what
the worker already uses (torch included); both are per snippet. Each group's ``preload`` lists
modules imported once before that group's children are forked (``torch._dynamo``, which optimizers
and checkpointing import lazily and slowly). The first group runs in the worker itself; every
other group in a sub-worker forked from it, which imports its modules while the first group's
snippets already run. All of them together run at most ``jobs`` snippets at once.

and writes one JSON line per finished snippet to standard output (see ``run_child`` for the
fields), in the order the snippets finish. Nothing else is ever written to its standard output.

Why a fork per snippet: importing torch takes seconds, so the worker pays it once; a forked child
starts from that already-imported state and any global state a snippet changes
(``torch.set_grad_enabled(False)``, ``torch.set_default_dtype``, module globals, seeds) dies with
the child, so the next snippet cannot see it. A child that hangs, exits or crashes is reported as
that snippet's failure while the others keep running.

This module must not be imported by the MkDocs process (it imports torch); ``docexec.execute``
talks to it over a pipe.
"""

from __future__ import annotations

import builtins
import faulthandler
import importlib
import importlib.machinery
import io
import json
import linecache
import os
import random
import select
import signal
import sys
import tempfile
import time
import traceback
import types

#: Events a child writes, one JSON object per line, to its events file:
#:   {"o": text, "l": line}   output written to stdout (or stderr, with "s": "stderr"); ``line``
#:                            is the snippet's module-level line that was running (0 if none)
#:   {"p": text, "l": line}   the text one ``print`` call in the snippet file wrote; ``line`` is the
#:                            line of that call being executed
#:   {"graph": {"dot": text, "alt": text}}   the autograd graph left when the snippet finished
#:   {"end": {...}}           the final status


#: Output a snippet may write before the rest is counted but no longer recorded (characters).
MAX_RECORDED = 16_000_000
_recorded = {"kept": 0, "dropped": 0}
#: Output written below Python (C code writing to file descriptors 1 and 2) lands in the raw file;
#: it is read back before every Python-level write, so both keep the order they were written in.
_raw = {"fd": -1, "offset": 0}


def _drain_raw(events_fd: int, line: int) -> None:
    if _raw["fd"] < 0:
        return
    size = os.fstat(_raw["fd"]).st_size
    if size > _raw["offset"]:
        data = os.pread(_raw["fd"], size - _raw["offset"], _raw["offset"])
        _raw["offset"] += len(data)
        _emit(events_fd, {"o": data.decode("utf-8", "replace"), "l": line, "raw_end": _raw["offset"]})


class _Recorder(io.TextIOBase):
    """A text stream that turns every write into an output event, tagged with the snippet line."""

    def __init__(self, events_fd: int, filename: str, name: str):
        self._fd = events_fd
        self._filename = filename
        self._name = name

    @property
    def name(self) -> str:  # what some libraries print for sys.stdout.name
        return self._name

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            _raw["line"] = line = _module_line(self._filename)
            _drain_raw(self._fd, line)
            room = MAX_RECORDED - _recorded["kept"]
            if room <= 0:
                _recorded["dropped"] += len(text)
            else:
                _recorded["kept"] += min(room, len(text))
                _recorded["dropped"] += max(0, len(text) - room)
                event = {"o": text[:room], "l": line}
                if self._name == "<stderr>":
                    event["s"] = "stderr"
                _emit(self._fd, event)
        return len(text)

    def flush(self) -> None:
        pass


def _emit(fd: int, event: dict) -> None:
    data = (json.dumps(event) + "\n").encode()
    while data:
        data = data[os.write(fd, data):]


def _module_line(filename: str) -> int:
    """Line of the outermost frame that runs code of ``filename``: the statement being executed."""
    line = 0
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            line = frame.f_lineno
        frame = frame.f_back
    return line


def _install_print(events_fd: int, filename: str) -> None:
    original = builtins.print

    def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001 - same name on purpose
        buffer = io.StringIO()
        original(*args, sep=sep, end=end, file=buffer)
        text = buffer.getvalue()
        caller = sys._getframe(1)
        if caller.f_code.co_filename == filename:
            _emit(events_fd, {"p": text[:MAX_RECORDED], "l": caller.f_lineno})
        target = sys.stdout if file is None else file
        target.write(text)
        if flush:
            target.flush()

    builtins.print = print


def _seed() -> None:
    """Start every snippet from the same random state (Python, torch, NumPy)."""
    random.seed(0)
    import torch

    torch.manual_seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:  # pragma: no cover - numpy is pinned, but a snippet must still run without it
        pass


def _address_space() -> int:
    """Bytes of address space this process uses now (``VmSize`` in ``/proc/self/status``; 0 if unknown)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):  # pragma: no cover - not Linux
        return 0


#: When the snippet's own code started and ended (``time.perf_counter``; 0.0 until then).
_own = {"started": 0.0, "ended": 0.0}

def _limit_memory(megabytes: float) -> None:
    """Cap this process's address space at what it uses now plus ``megabytes`` (Linux; no-op elsewhere)."""
    try:
        import resource

        now = _address_space()
        if now:
            limit = now + int(megabytes * 1024 * 1024)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux
        pass


def run_child(root: str, display: str, events_path: str, raw_path: str, workdir: str,
              memory_mb: float | None = None, timeout: float | None = None) -> None:
    """Run one snippet in this (forked) process and write its events; never returns.

    ``display`` is the snippet's path relative to ``root`` (``snippets/x/y.py``); it is the file name
    compiled into the code, so tracebacks and warnings show it and not a machine-specific path.
    Output written at file-descriptor level (C code) goes to ``raw_path``.
    """
    # the worker's handlers are not the snippet's: SIGTERM ends it, SIGINT raises KeyboardInterrupt
    # (unless the build was started with SIGINT ignored, which the snippet then inherits)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) is _stop_everything:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    events_fd = os.open(events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    raw_fd = os.open(raw_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    _raw["fd"] = os.open(raw_path, os.O_RDONLY)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(raw_fd, 1)
    os.dup2(raw_fd, 2)
    # A crash or a timeout leaves a Python traceback in the raw output, so the report can name the line.
    crash_log = os.fdopen(os.dup(raw_fd), "w")
    # Own process group (so a timeout also stops processes the snippet starts), and no inherited
    # descriptors but these (so such a process cannot hold the worker's answer pipe open).
    os.setpgid(0, 0)
    keep = sorted({0, 1, 2, events_fd, raw_fd, _raw["fd"], crash_log.fileno()})
    for low, high in zip([-1] + keep, keep + [os.sysconf("SC_OPEN_MAX")]):
        if low + 1 < high:  # os.closerange(n, n) may close everything from n on (close_range(n, -1))
            os.closerange(low + 1, high)
    faulthandler.enable(file=crash_log)
    if timeout:
        faulthandler.dump_traceback_later(max(0.05, timeout - 0.2), file=crash_log)
    path = os.path.join(root, display)
    status: dict = {"status": "ok"}
    imports = _ImportRecorder(root, display)
    try:
        with open(path, encoding="utf-8-sig") as handle:  # Python itself skips a byte-order mark
            source = handle.read()
        linecache.cache[display] = (len(source), None, source.splitlines(True), display)
        os.chdir(workdir)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as this process
        sys.stdout = _Recorder(events_fd, display, "<stdout>")
        sys.stderr = _Recorder(events_fd, display, "<stderr>")
        sys.argv = [display]
        sys.path.insert(0, os.path.dirname(path))
        _install_print(events_fd, display)
        # torch and NumPy were seeded by the worker before it forked, so every child starts from
        # that state; Python's random module reseeds itself from the OS in every forked child
        # (os.register_at_fork in Lib/random.py), so it is seeded again here.
        random.seed(0)
        if memory_mb:
            _limit_memory(memory_mb)
        sys.meta_path.insert(0, imports)  # from here on, every first-time import is the snippet's
        imports.modules_before = len(sys.modules)
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__builtins__ = builtins
        sys.modules["__main__"] = module
        code = compile(source, display, "exec")
        _own["started"] = time.perf_counter()
        exec(code, module.__dict__)
        _own["ended"] = time.perf_counter()
        faulthandler.cancel_dump_traceback_later()
        _emit_graph(events_fd, module.__dict__)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            status = {"status": "error", "type": "SystemExit",
                      "message": f"the snippet called sys.exit({exc.code!r})",
                      "line": _last_line(exc, display), "traceback": ""}
    except MemoryError as exc:
        status = {"status": "error", "type": "MemoryError",
                  "message": f"the snippet ran out of memory (limit: {memory_mb:g} MiB above the worker's use)"
                  if memory_mb else f"the snippet ran out of memory {exc}".strip(),
                  "line": _last_line(exc, display), "traceback": ""}
    except BaseException as exc:  # noqa: BLE001 - every failure of a snippet is reported
        status = {"status": "error", "type": type(exc).__name__, "message": str(exc),
                  "line": _last_line(exc, display), "traceback": _format_traceback(exc)}
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001
        pass
    faulthandler.cancel_dump_traceback_later()
    _drain_raw(events_fd, _raw.get("line", 0))
    if _own["started"]:
        status["own_seconds"] = round((_own["ended"] or time.perf_counter()) - _own["started"], 4)
    names = imports.names
    if len(sys.modules) - imports.modules_before > len({n for n in names if n in sys.modules}):
        # Modules were added without a finder (importlib.util.spec_from_file_location and a
        # sys.modules entry): look at every module, as few snippets make this necessary.
        names = list(sys.modules)
    failed, absent = _missing_modules(root, imports.asked_locally)
    status["deps"] = sorted(set(_local_modules(root, display, names)) | set(failed))
    if absent:
        status["absent"] = absent
    if _recorded["dropped"]:
        status["dropped"] = _recorded["dropped"]
    _emit(events_fd, {"end": status})
    os._exit(0)


class _ImportRecorder:
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


_OWN_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def _is_local(path: str, prefix: str, display: str) -> bool:
    """Whether ``path`` (a module's file) is the snippet (``display``) or another repository file
    under ``prefix`` (the root): not docexec itself, not an installed package."""
    return path == display or (path.startswith(prefix) and not path.startswith(_OWN_DIR)
                               and "site-packages" not in path and not path.startswith(prefix + ".venv" + os.sep))


def _relative(path: str, root: str) -> str:
    """``path`` relative to ``root``, with ``/`` separators: how results name repository files."""
    return os.path.relpath(path, root).replace(os.sep, "/")


def _local_modules(root: str, display: str, names: list[str]) -> list[str]:
    """Repository files among the modules ``names`` (not installed packages, not docexec itself,
    not the snippet)."""
    found = []
    prefix = os.path.join(root, "")
    for name in dict.fromkeys(names):
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if _is_local(path, prefix, display) and os.path.isfile(path):
            rel = _relative(path, root)
            if rel != display:
                found.append(rel)
    return sorted(set(found))


def _missing_modules(root: str, names: list[str]) -> tuple[list[str], list[str]]:
    """Where in the repository the modules ``names`` that failed to import would be found.

    For each name not in ``sys.modules`` (its import raised, perhaps caught by the snippet), every
    place the import system looked under the root: ``<dir>/<name>`` plus each module suffix
    (``importlib.machinery.all_suffixes()``), and the package directory ``<dir>/<name>`` (its
    ``__init__`` file if it exists), for each ``<dir>`` of ``sys.path`` (or of the parent
    package's ``__path__``). Imports made by code compiled from a string (``exec``) are not seen.

    Returns:
        ``(files, absent)``: repository paths, relative to ``root``, of files that exist (the module
        is there but its import raised: its bytes matter) and of paths that do not exist (creating
        one would change what the import finds).
    """
    files, absent = set(), set()
    prefix = os.path.join(root, "")
    for name in dict.fromkeys(names):
        if name in sys.modules:
            continue
        parent, _, last = name.rpartition(".")
        if parent:
            places = list(getattr(sys.modules.get(parent), "__path__", None) or [])
        else:
            places = [place for place in sys.path if place]
        for place in places:
            place = os.path.abspath(place)
            if not _is_local(os.path.join(place, ""), prefix, ""):
                continue
            for candidate in [os.path.join(place, last + suffix) for suffix in importlib.machinery.all_suffixes()]:
                if os.path.isfile(candidate):
                    files.add(_relative(candidate, root))
                elif not os.path.lexists(candidate):
                    absent.add(_relative(candidate, root))
            package = os.path.join(place, last)
            if not os.path.lexists(package):
                absent.add(_relative(package, root))
            else:  # a package whose __init__ raised: its bytes matter as a module's do
                for suffix in importlib.machinery.all_suffixes():
                    init = os.path.join(package, "__init__" + suffix)
                    if os.path.isfile(init):
                        files.add(_relative(init, root))
    return sorted(files), sorted(absent)


def _emit_graph(events_fd: int, namespace: dict) -> None:
    """Draw the graph the snippet's named tensors hold when it finishes (see ``docexec.graph``)."""
    from docexec import graph

    tensors = graph.named_tensors(namespace)
    took_part = any(t.grad_fn is None and t.requires_grad and t.grad is not None for t in tensors.values())
    if graph.has_graph(tensors) or took_part:
        _emit(events_fd, {"graph": {"dot": graph.to_dot(tensors), "alt": graph.describe(tensors)}})


def _format_traceback(exc: BaseException) -> str:
    """The traceback without this worker's own frames (they say nothing about the snippet)."""
    report = traceback.TracebackException.from_exception(exc)
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename != __file__])
    return "".join(report.format()).rstrip()


def _last_line(exc: BaseException, display: str) -> int:
    """The innermost traceback line inside the snippet file (0 when the error came from elsewhere)."""
    line = 0
    if isinstance(exc, SyntaxError) and exc.filename == display:
        return exc.lineno or 0
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == display:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _read_result(display: str, events_path: str, raw_path: str) -> dict:
    events = []
    end = None
    with open(events_path, encoding="utf-8") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:  # a half-written last line from a killed child
                continue
            if "end" in event:
                end = event["end"]
            else:
                events.append(event)
    drained = max((event.get("raw_end", 0) for event in events), default=0)
    with open(raw_path, "rb") as handle:
        raw = handle.read()[drained:].decode("utf-8", "replace")
    return {"path": display, "events": events, "raw": raw, "end": end}


def preload() -> None:
    """Import torch (and NumPy) once, so that every forked child starts with them."""
    import torch  # noqa: F401

    try:
        import numpy  # noqa: F401
    except ImportError:  # pragma: no cover
        pass


def _prepare(modules: list[str]) -> None:
    """Make this process the state every child starts from: ``modules`` imported, seeded, frozen.

    A module that fails to import is left alone: the snippet that needs it imports it again and
    reports the error itself. Seeding here rather than in each child gives every child the same
    random state for less. ``gc.freeze()`` (https://docs.python.org/3/library/gc.html#gc.freeze)
    keeps the cycle collector of a child from visiting, and so copying, every object inherited
    from the worker; without it one ``gc.collect()`` in a snippet costs about 0.2 s.
    """
    import encodings.utf_8_sig  # noqa: F401 - what run_child reads the snippet with
    import gc
    import importlib

    from docexec import graph  # noqa: F401 - what _emit_graph draws with

    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001
            pass
    _warm_up()
    _seed()
    gc.freeze()


def _warm_up() -> None:
    """Pay once, before forking, what torch pays on a first tensor operation and a first tensor
    repr (lazy initialisation in the dispatcher and in ``torch._tensor_str``), so that no child
    pays it again. No tensor requires grad: no autograd Node is made (which would advance the
    sequence numbers a snippet can print), no engine started, no random number drawn.
    """
    import torch

    x = torch.ones(2)
    repr((x * 2 + 1).sum()), repr(x)


class _Slots:
    """At most ``jobs`` snippets running at once across the worker and its sub-workers.

    A pipe holds one byte per free slot, the scheme of GNU make's jobserver
    (https://www.gnu.org/software/make/manual/html_node/POSIX-Jobserver.html): a process takes a
    byte before it forks a child and puts it back when that child has ended.
    """

    def __init__(self, jobs: int):
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)
        os.write(self.write_fd, b"+" * jobs)

    def take(self) -> bool:
        try:
            return os.read(self.read_fd, 1) == b"+"
        except BlockingIOError:
            return False

    def give(self) -> None:
        os.write(self.write_fd, b"+")


def _groups(request: dict) -> list[dict]:
    groups = [g for g in request.get("groups", []) if g.get("snippets")]
    return groups or [{"preload": [], "snippets": []}]


def serve(request: dict, out) -> None:
    """Run every snippet of ``request``, at most ``jobs`` at once; write one result line each to ``out``."""
    import torch

    versions = {"torch": torch.__version__, "python": sys.version.split()[0]}
    slots = _Slots(max(1, int(request.get("jobs", 1))))
    first, *others = _groups(request)
    # read end of a sub-worker's result pipe -> (its pid, its snippets not yet answered for, bytes
    # not yet a whole line, {pid: snippet} of its children running, each holding a slot)
    feeds = _LIVE["feeds"] = {}
    worker = os.getpid()
    for group in others:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # a sub-worker: imports its group's modules, then runs its snippets
            status = 70
            _LIVE.update(running={}, feeds={})  # the worker's own are not this process's
            try:
                os.close(read_fd)
                for fd in feeds:
                    os.close(fd)
                _prepare(group.get("preload", []))
                with os.fdopen(write_fd, "w", encoding="utf-8") as pipe:
                    _run_group(request, group["snippets"], slots, versions, pipe, {}, announce=True, worker=worker)
                status = 0
            except BaseException:  # noqa: BLE001 - said on the worker's stderr; its snippets are reported
                traceback.print_exc()
            finally:
                os._exit(status)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        feeds[read_fd] = (pid, list(group["snippets"]), b"", {})
    _prepare(first.get("preload", []))
    _run_group(request, first["snippets"], slots, versions, out, feeds)


def _run_group(request: dict, snippets: list[str], slots: _Slots, versions: dict, out, feeds: dict,
               announce: bool = False, worker: int | None = None) -> None:
    """Fork one child per snippet of ``snippets`` whenever a slot is free and write each result to
    ``out`` when the child has ended; meanwhile pass on to ``out`` the result lines of the
    sub-workers behind ``feeds`` (see ``serve``). With ``announce`` (in a sub-worker), also write a
    ``+<pid> <snippet>`` line to ``out`` for each child started and a ``-<pid>`` line for each
    child ended, so that the worker can stop the children of a sub-worker that died and give
    back their slots. ``worker`` (in a sub-worker) is the worker's pid: if it is no longer this
    process's parent, the worker died, and this ends as on SIGTERM."""
    root = request["root"]
    default_timeout = float(request.get("timeout", 30.0))
    default_memory = request.get("memory_mb")
    options = request.get("options", {})
    pending = list(snippets)
    running: dict[int, tuple[str, str, float, str, str, float]] = {}
    _LIVE["running"] = running
    scratch = tempfile.mkdtemp(prefix="docexec-")
    counter = 0
    exits: dict[int, int | None] = {}  # pid of a running child -> a descriptor readable once it ends
    while pending or running or feeds:
        if worker is not None and os.getppid() != worker:
            # The worker died (a snippet of its own killed it): nobody reads what this sub-worker
            # writes, and the slots it held never come back. End as on SIGTERM, or this process
            # would wait for a slot for ever while holding the build's end of the result pipe.
            _stop_everything(signal.SIGTERM, None)
        busy = False
        while pending and slots.take():
            display = pending.pop(0)
            counter += 1
            base = os.path.join(scratch, str(counter))
            os.mkdir(base)
            workdir = os.path.join(base, "cwd")
            os.mkdir(workdir)
            events_path = os.path.join(base, "events.jsonl")
            raw_path = os.path.join(base, "raw.txt")
            open(events_path, "w").close()
            open(raw_path, "w").close()
            out.flush()
            pid = os.fork()
            if pid == 0:  # child
                try:
                    run_child(root, display, events_path, raw_path, workdir,
                              options.get(display, {}).get("memory_mb", default_memory),
                              float(options.get(display, {}).get("timeout", default_timeout)))
                finally:
                    os._exit(70)
            limit = float(options.get(display, {}).get("timeout", default_timeout))
            running[pid] = (display, events_path, time.monotonic(), raw_path, base, limit)
            exits[pid] = _exit_fd(pid)
            if announce:
                out.write(f"+{pid} {display}\n")
                out.flush()
        for pid in list(running):
            display, events_path, started, raw_path, base, limit = running[pid]
            done, wait_status = os.waitpid(pid, os.WNOHANG)
            timed_out = False
            if done == 0:
                if time.monotonic() - started <= limit:
                    continue
                _kill_group(pid)
                os.waitpid(pid, 0)
                timed_out = True
            _kill_group(pid)  # whatever the snippet started and left running
            del running[pid]
            if exits.get(pid) is not None:
                os.close(exits[pid])
            exits.pop(pid, None)
            slots.give()
            if announce:
                out.write(f"-{pid}\n")
            busy = True
            result = _read_result(display, events_path, raw_path)
            result["versions"] = versions
            result["seconds"] = round(time.monotonic() - started, 3)
            if timed_out:
                result["end"] = {"status": "error", "type": "Timeout",
                                 "message": f"the snippet ran longer than {limit:g} s and was stopped",
                                 "line": _crash_line(result, display), "traceback": _crash_trace(result)}
            elif result["end"] is None:
                result["end"] = {"status": "error", "type": "Crash",
                                 "message": _describe_exit(wait_status),
                                 "line": _crash_line(result, display), "traceback": _crash_trace(result)}
            out.write(json.dumps(result) + "\n")
            out.flush()
            _remove_tree(base)
        busy = _pass_on(feeds, out, versions, slots) or busy
        if not busy:
            _wait_for_work(running, exits, feeds, slots if pending else None)
    _remove_tree(scratch)


def _exit_fd(pid: int) -> int | None:
    """A descriptor that becomes readable when child ``pid`` ends (Linux 5.3+: ``os.pidfd_open``),
    or None where there is none; the caller closes it."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait_for_work(running: dict, exits: dict, feeds: dict, slots: _Slots | None) -> None:
    """Sleep until a child ends, a sub-worker writes, a slot is free (if ``slots`` is given) or the
    next timeout is due, whichever comes first. Where a child has no exit descriptor, wakes up
    every 2 ms to look, as a poll."""
    watched = [fd for fd in exits.values() if fd is not None] + list(feeds)
    if slots is not None:
        watched.append(slots.read_fd)
    if any(exits.get(pid) is None for pid in running):
        wait = 0.002
    else:
        now = time.monotonic()
        due = [started + limit - now for _, _, started, _, _, limit in running.values()]
        wait = min([1.0] + due)
    try:
        select.select(watched, [], [], max(0.0, wait) + 0.001)
    except (OSError, ValueError):
        time.sleep(0.002)


def _pass_on(feeds: dict, out, versions: dict, slots: _Slots) -> bool:
    """Copy the complete result lines the sub-workers wrote so far to ``out``; when one has ended,
    report each of its snippets it did not answer for as crashed. True if anything was read."""
    read_any = False
    for fd in list(feeds):
        pid, waiting, rest, held = feeds[fd]
        try:
            data = os.read(fd, 1 << 20)
        except BlockingIOError:
            continue
        read_any = True
        if data:
            *lines, rest = (rest + data).split(b"\n")
            for line in lines:
                if line[:1] == b"+":
                    pid_text, _, display = line[1:].decode("utf-8").partition(" ")
                    held[int(pid_text)] = display
                    continue
                if line[:1] == b"-":
                    held.pop(int(line[1:]), None)
                    continue
                out.write(line.decode("utf-8") + "\n")
                waiting.remove(json.loads(line)["path"])
            out.flush()
            feeds[fd] = (pid, waiting, rest, held)
            continue
        os.close(fd)  # the sub-worker has ended
        del feeds[fd]
        _, wait_status = os.waitpid(pid, 0)
        for child in held:  # children it left running: stopped here, their slots given back
            _kill_group(child)
            slots.give()
        running_then = set(held.values())
        for display in waiting:
            what = "running it" if display in running_then else "that was to run it"
            out.write(json.dumps({"path": display, "events": [], "raw": "", "versions": versions, "seconds": 0.0,
                                  "end": {"status": "error", "type": "Crash", "line": 0, "traceback": "",
                                          "message": f"the sub-worker {what} ended first: "
                                                     + _describe_exit(wait_status)}}) + "\n")
        out.flush()
    return read_any


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _crash_line(result: dict, display: str) -> int:
    """The snippet line in faulthandler's traceback (innermost first), else the last line that wrote."""
    import re

    found = re.findall(rf'File "{re.escape(display)}", line (\d+)', result["raw"])
    if found:
        return int(found[0])
    lines = [event.get("l", 0) for event in result["events"] if event.get("l")]
    return lines[-1] if lines else 0


def _crash_trace(result: dict) -> str:
    raw = result["raw"]
    start = max(raw.rfind("Fatal Python error"), raw.rfind("Timeout ("), raw.rfind("Thread 0x"))
    return raw[start:].strip() if start >= 0 else ""


def _describe_exit(wait_status: int) -> str:
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the interpreter was killed by {name}"
    return f"the interpreter exited with status {os.WEXITSTATUS(wait_status)} (os._exit or a crash)"


def _remove_tree(path: str) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


#: The running snippets (``_run_group``'s ``running``: pid of each snippet process, the leader of
#: its own process group) and the sub-workers (``serve``'s ``feeds``) of this (sub-)worker.
_LIVE: dict[str, dict] = {"running": {}, "feeds": {}}


def _stop_everything(signum, frame) -> None:  # noqa: ARG001 - a signal handler's signature
    """On SIGTERM or SIGINT: stop every snippet this process runs (with what they started) and
    every sub-worker (which does the same for its own), then end with status 128 + the signal.

    ``run_snippets`` sends SIGTERM when it has to give up on the worker; Ctrl-C in a terminal sends
    SIGINT to the build, the worker and its sub-workers, but not to the snippets, which run in
    process groups of their own. Ended any other way (SIGKILL, or Python's KeyboardInterrupt), the
    worker would leave those processes to run on past their timeouts.
    """
    for pid in list(_LIVE["running"]):
        _kill_group(pid)
    for pid, *_ in list(_LIVE["feeds"].values()):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    os._exit(128 + signum)


def main() -> None:
    signal.signal(signal.SIGTERM, _stop_everything)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a build run in the background ignores it
        signal.signal(signal.SIGINT, _stop_everything)
    preload()  # before reading the request: the caller may start this process early
    request = json.load(sys.stdin)
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    # Keep the protocol channel clean: anything the worker itself might print goes to stderr.
    os.dup2(2, 1)
    serve(request, out)
    out.close()


if __name__ == "__main__":
    main()
