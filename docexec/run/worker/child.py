"""The snippet's own process: runs one snippet file and records what it did.

``run_child`` is called in a process forked from the worker (``docexec.run.worker.pool``). It gives the
snippet the interpreter state of ``python snippet.py`` (``__main__``, ``sys.argv``, its folder on
``sys.path``, a fresh working directory) and records, as events (``docexec.run.protocol``):

* everything written to ``sys.stdout`` / ``sys.stderr``, tagged with the snippet line that ran;
* the text of each ``print`` call in the snippet file, tagged with its line (what claims check);
* output written below Python (C code writing to file descriptors 1 and 2), kept in order;
* the autograd graph of its named tensors when it ends (``docexec.graphs.graph``);
* which repository files it imported, and where imports looked in vain (``docexec.run.cache``).
"""

from __future__ import annotations

import builtins
import contextlib
import faulthandler
import importlib
import importlib.machinery
import io
import json
import linecache
import os
import random
import shlex
import shutil
import signal
import sys
import time
import traceback
import types

from docexec.core import compat
from docexec.core.files import PACKAGE_DIR
from docexec.run.protocol import End, Event, Limits, error_end
from docexec.run.worker.record import Recorder
from docexec.source.claims import ADDRESS_LIKE
from docexec.source.snippets import split_lines

#: Output a snippet may write before the rest is counted but no longer recorded (characters).
MAX_RECORDED = 16_000_000


class _Capture:
    """What one snippet process records: its events file, the raw output file read back in order,
    how much output was kept and dropped, and when the snippet's own code ran."""

    def __init__(self, events_fd: int, raw_fd: int):
        self.events_fd = events_fd
        self.raw_fd = raw_fd  # read end of the raw output file
        self.raw_offset = 0
        self.line = 0  # the snippet line of the last Python-level write
        self.kept = 0
        self.dropped = 0
        self.started = 0.0
        self.ended = 0.0
        self.numbers: set[str] = set()  # printed numbers that may be addresses (ADDRESS_LIKE)

    def note_numbers(self, text: str) -> None:
        if len(self.numbers) < 100_000:
            self.numbers.update(ADDRESS_LIKE.findall(text))

    def emit(self, event: Event | dict) -> None:
        data = (json.dumps(event) + "\n").encode()
        while data:
            data = data[os.write(self.events_fd, data):]

    def drain_raw(self, line: int) -> None:
        """Turn what C code wrote to file descriptors 1 and 2 since the last look into an event,
        so that it keeps its place among the Python-level writes."""
        size = os.fstat(self.raw_fd).st_size
        if size > self.raw_offset:
            data = os.pread(self.raw_fd, size - self.raw_offset, self.raw_offset)
            self.raw_offset += len(data)
            self.note_numbers(data.decode("utf-8", "replace"))
            self.emit({"o": data.decode("utf-8", "replace"), "l": line, "raw_end": self.raw_offset})

    def output(self, text: str, line: int, stream: str) -> None:
        """Record ``text`` written to ``stream`` while snippet line ``line`` ran (up to ``MAX_RECORDED``)."""
        self.line = line
        self.drain_raw(line)
        room = MAX_RECORDED - self.kept
        if room <= 0:
            self.dropped += len(text)
            return
        self.kept += min(room, len(text))
        self.dropped += max(0, len(text) - room)
        self.note_numbers(text[:room])
        event: Event = {"o": text[:room], "l": line}
        if stream == "stderr":
            event["s"] = "stderr"
        self.emit(event)


class _Recorder(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` of a snippet: a text stream that turns every write into an
    output event, tagged with the snippet line, with what the real ones have besides: ``buffer``
    (bytes written there are decoded as UTF-8 and recorded the same way), ``fileno()`` (the file
    descriptor 1 or 2, which a subprocess can be given: what it writes lands in the raw output and
    keeps its place among the other writes), ``encoding`` and ``errors``."""

    def __init__(self, capture: _Capture, filename: str, name: str):
        self._capture = capture
        self._filename = filename
        self._name = name
        self.buffer = _BytesRecorder(self)

    @property
    def name(self) -> str:  # what some libraries print for sys.stdout.name
        return self._name

    @property
    def encoding(self) -> str:
        return "utf-8"

    @property
    def errors(self) -> str:
        return "strict"

    @property
    def line_buffering(self) -> bool:
        return False

    def fileno(self) -> int:
        return 2 if self._name == "<stderr>" else 1

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if text:
            self._capture.output(text, _module_line(self._filename), "stderr" if self._name == "<stderr>" else "stdout")
        return len(text)

    def flush(self) -> None:
        pass


class _BytesRecorder(io.BufferedIOBase):
    """The ``buffer`` of a ``_Recorder``: bytes, decoded as UTF-8 as they come (a character split
    over two writes waits for its end), are written to the text stream."""

    def __init__(self, text: _Recorder):
        import codecs

        self._text = text
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._text.fileno()

    def write(self, data) -> int:
        data = bytes(data)
        text = self._decoder.decode(data)
        if text:
            self._text.write(text)
        return len(data)

    def flush(self) -> None:
        pass


def _module_line(filename: str) -> int:
    """Line of the outermost frame that runs code of ``filename``: the statement being executed."""
    line = 0
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            line = frame.f_lineno
        frame = frame.f_back
    return line


def _install_print(capture: _Capture, filename: str) -> None:
    """Replace ``print`` so that each call made in the snippet file is also recorded with its line."""
    original = builtins.print

    def print(*args, sep=" ", end="\n", file=None, flush=False):  # noqa: A001 - same name on purpose
        buffer = io.StringIO()
        original(*args, sep=sep, end=end, file=buffer)
        text = buffer.getvalue()
        caller = sys._getframe(1)
        if caller.f_code.co_filename == filename:
            capture.emit({"p": text[:MAX_RECORDED], "l": caller.f_lineno})
        target = sys.stdout if file is None else file
        target.write(text)
        if flush:
            target.flush()

    builtins.print = print


def _address_space() -> int:
    """Bytes of address space this process uses now (``VmSize`` in ``/proc/self/status``; 0 if unknown)."""
    try:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):  # not Linux
        return 0


def _limit_memory(megabytes: float) -> None:
    """Cap this process's address space at what it uses now plus ``megabytes`` (Linux; no-op elsewhere)."""
    try:
        import resource

        now = _address_space()
        if now:
            limit = now + int(megabytes * 1024 * 1024)
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, OSError, ValueError):  # not Linux
        pass


def _isolate(events_path: str, raw_path: str) -> tuple[_Capture, int]:
    """Point file descriptors 0-2 at /dev/null and the raw output file, lead a process group of
    our own (so a timeout also stops what the snippet starts), and close every other inherited
    descriptor (so nothing the snippet starts can hold the worker's answer pipe open).

    Returns:
        The capture, and a descriptor for the crash log (faulthandler's tracebacks land in the raw output).
    """
    events_fd = os.open(events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    raw_fd = os.open(raw_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    capture = _Capture(events_fd, os.open(raw_path, os.O_RDONLY))
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(raw_fd, 1)
    os.dup2(raw_fd, 2)
    crash_fd = os.dup(raw_fd)
    os.setpgid(0, 0)
    keep = sorted({0, 1, 2, events_fd, raw_fd, capture.raw_fd, crash_fd})
    for low, high in zip([-1] + keep, keep + [os.sysconf("SC_OPEN_MAX")], strict=True):
        if low + 1 < high:  # os.closerange(n, n) may close everything from n on (close_range(n, -1))
            os.closerange(low + 1, high)
    return capture, crash_fd


def run_child(root: str, display: str, events_path: str, raw_path: str, workdir: str, limits: Limits,
              stop_handler=None, parent: int = 0) -> None:
    """Run one snippet in this (forked) process and write its events; never returns.

    Args:
        root: the repository root.
        display: the snippet's path relative to ``root`` (``snippets/x/y.py``): the file name
            compiled into its code, so tracebacks and warnings show it and no machine's path.
        events_path, raw_path: the files its events and its raw output go to.
        workdir: an empty folder that becomes its working directory.
        limits: its timeout and memory limit.
        stop_handler: the worker's SIGINT handler; a snippet gets Python's own back instead
            (a build started with SIGINT ignored passes that on).
        parent: the (sub-)worker's pid: if it dies, this process is killed (``die_with_parent``).
    """
    if parent:
        die_with_parent(signal.SIGKILL, parent)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if stop_handler is not None and signal.getsignal(signal.SIGINT) is stop_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    capture, crash_fd = _isolate(events_path, raw_path)
    crash_log = os.fdopen(crash_fd, "w")
    faulthandler.enable(file=crash_log)
    dump_due = None  # when faulthandler writes where the snippet is, shortly before the worker stops it
    if limits.timeout:
        dump_due = time.monotonic() + max(0.05, limits.timeout - 0.2)  # read first: the dump is never earlier
        faulthandler.dump_traceback_later(max(0.05, limits.timeout - 0.2), file=crash_log)
    imports, files = _ImportRecorder(root, display), _FileRecorder()
    sys.addaudithook(files)
    adopt_orphans()
    _forget_inherited_finalizers()
    own = os.getpid()
    recorder = Recorder(limits.figure) if limits.figure else None
    status, namespace = _execute(root, display, workdir, capture, imports, limits, files, recorder)
    if os.getpid() != own:  # a process the snippet forked, which ran on to the end of the file
        _end_forked(status)
    if status["status"] == "ok":
        status = _emit_graph(capture, namespace, display, recorder)
    status = _shut_down(status)
    files.on = False
    with contextlib.suppress(BaseException):  # the snippet may have replaced the streams with anything
        sys.stdout.flush()
        sys.stderr.flush()
    end_descendants()
    faulthandler.cancel_dump_traceback_later()
    if dump_due is not None and time.monotonic() >= dump_due:  # that text is in its output: not a run's
        status["late"] = True
    capture.drain_raw(capture.line)
    capture.emit({"end": _finish(status, root, capture, imports, files.sorted_out(root, workdir, display))})
    os._exit(0)


def _shut_down(status: End) -> End:
    """End the snippet as Python ends a program (``Py_FinalizeEx``): wait for its threads that are
    not daemons, then run its ``atexit`` handlers (their output is recorded like the rest; a handler
    that raises is reported on stderr, as Python does)."""
    with contextlib.suppress(BaseException):
        compat.join_non_daemon_threads()
    with contextlib.suppress(BaseException):
        compat.run_atexit_handlers()
    return status


def _forget_inherited_finalizers() -> None:
    """Detach the ``weakref.finalize`` callbacks this process inherited from the worker (torch
    registers one per operator library): at exit they would run in every snippet's process, and
    free what the worker, not the snippet, made. The snippet's own still run at its exit."""
    compat.forget_weakref_finalizers()


def _end_forked(status: End) -> None:
    """End a process the snippet forked that ran on past the snippet's last line, as Python would
    end it: report an exception on stderr, shut down, exit (1 after an exception, else 0). It
    writes no end of its own: the snippet's process does."""
    if status["status"] != "ok" and status.get("traceback"):
        with contextlib.suppress(BaseException):
            print(status["traceback"], file=sys.stderr)
    _shut_down(status)
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0 if status["status"] == "ok" else 1)


#: prctl(2) options (Linux, <linux/prctl.h>)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def die_with_parent(signum: int, parent: int) -> None:
    """Have the kernel send this process ``signum`` when its parent ``parent`` ends (Linux prctl
    ``PR_SET_PDEATHSIG``; the parent must be single-threaded, as the worker is): a snippet whose
    worker was killed stops too, instead of running on past its timeout. If the parent is gone
    already, the signal comes at once."""
    _prctl(_PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def adopt_orphans() -> None:
    """Make this process a child subreaper (Linux prctl ``PR_SET_CHILD_SUBREAPER``): a process
    started below it whose parent ends (a daemon, a process in a new session) becomes its child
    instead of init's, so that ``end_descendants`` can end it. A no-op where there is no prctl."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``; [] where there is none)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as handle:
                found += [int(pid) for pid in handle.read().split()]
    return found


def end_descendants(keep: set[int] = frozenset()) -> None:
    """Kill every process below this one but ``keep`` (with ``adopt_orphans``, the orphans of its
    descendants are its children too), and reap them: nothing a snippet started outlives it."""
    for _ in range(20):  # each round ends one generation; their orphans come back as children
        strays = [pid for pid in children() if pid not in keep]
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _execute(root: str, display: str, workdir: str, capture: _Capture, imports: _ImportRecorder,
             limits: Limits, files: _FileRecorder, recorder: Recorder | None = None) -> tuple[End, dict]:
    """Execute the snippet as ``__main__``; return how it ended and its module's namespace."""
    path = os.path.join(root, display)
    namespace: dict = {}
    try:
        with open(path, encoding="utf-8-sig") as handle:  # Python itself skips a byte-order mark
            source = handle.read()
        # the lines Python's tokenizer sees (str.splitlines also breaks at form feeds and others)
        linecache.cache[display] = (len(source), None, split_lines(source, keepends=True), display)
        os.chdir(workdir)
        sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as this process
        sys.stdout = _Recorder(capture, display, "<stdout>")
        sys.stderr = _Recorder(capture, display, "<stderr>")
        sys.argv = [display]
        sys.path.insert(0, os.path.dirname(path))
        _install_print(capture, display)
        # torch and NumPy were seeded by the worker before it forked; Python's random module
        # reseeds itself in every forked child (os.register_at_fork in Lib/random.py).
        random.seed(0)
        if limits.memory_mb:
            _limit_memory(limits.memory_mb)
        sys.meta_path.insert(0, imports)  # from here on, every first-time import is the snippet's
        imports.modules_before = len(sys.modules)
        module = types.ModuleType("__main__")
        module.__file__ = path
        module.__builtins__ = builtins
        sys.modules["__main__"] = module
        namespace = module.__dict__
        code = compile(source, display, "exec")
        if recorder is not None:
            recorder.start()
        capture.started = time.perf_counter()
        files.on = True
        _as_main(code, namespace)
        capture.ended = time.perf_counter()
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return error_end("SystemExit", f"the snippet called sys.exit({exc.code!r})",
                             _last_line(exc, display)), namespace
    except MemoryError as exc:
        message = (f"the snippet ran out of memory (limit: {limits.memory_mb:g} MiB above the worker's use)"
                   if limits.memory_mb else f"the snippet ran out of memory {exc}".strip())
        return error_end("MemoryError", message, _last_line(exc, display)), namespace
    except BaseException as exc:  # noqa: BLE001 - every failure of a snippet is reported
        return error_end(type(exc).__name__, str(exc), _last_line(exc, display), _format_traceback(exc)), namespace
    return {"status": "ok"}, namespace


#: Runs a snippet's code below frames that all say ``sys``, line 1: what ``warnings.warn(...,
#: stacklevel=2)`` (or more) at a module's top level names under ``python file.py``, where no
#: Python frame is above the module's, rather than this module's path and line.
_AS_MAIN = compile("def _enter(n, code, ns): return _enter(n - 1, code, ns) if n else exec(code, ns)\n",
                   "sys", "exec")


def _as_main(code, namespace: dict, depth: int = 8) -> None:
    scope: dict = {}
    exec(_AS_MAIN, scope)
    _stack_ends_at(scope["_enter"].__code__)
    scope["_enter"](depth, code, namespace)


def _stack_ends_at(boundary) -> None:
    """Make the stacks that ``traceback`` (and through it ``logging``'s ``stack_info``) lists end at
    the snippet's module frame, as under ``python file.py``: the frames of ``boundary`` (the
    ``sys`` frames of ``_as_main``) and the engine's below them are left out."""
    original = traceback.walk_stack

    def walk_stack(f):
        if f is None:  # the caller's own frame, as the original finds it
            yield from original(f)
            return
        for frame, line in original(f):
            if frame.f_code is boundary:
                return
            yield frame, line

    traceback.walk_stack = walk_stack


def _addresses(numbers: set[str]) -> list[str]:
    """Those of ``numbers`` (as printed, ``0x...`` or decimal) that lie in memory this process has
    mapped (``/proc/self/maps``): object addresses and ids, which change from run to run."""
    import bisect

    if not numbers:
        return []
    ranges = []
    with contextlib.suppress(OSError, ValueError), open("/proc/self/maps") as maps:
        for line in maps:
            start, _, end = line.split(" ", 1)[0].partition("-")
            ranges.append((int(start, 16), int(end, 16)))
    ranges.sort()
    starts = [start for start, _ in ranges]
    found = []
    for token in numbers:
        value = int(token, 16) if token.startswith("0x") else int(token)
        index = bisect.bisect_right(starts, value) - 1
        if index >= 0 and value < ranges[index][1]:
            found.append(token)
    return sorted(found)


def _finish(status: End, root: str, capture: _Capture, imports: _ImportRecorder, files: dict) -> End:
    """``status`` with what every end carries: own time, dependencies (``files``: what
    ``_FileRecorder.sorted_out`` gives), dropped output."""
    if capture.started:
        status["own_seconds"] = round((capture.ended or time.perf_counter()) - capture.started, 4)
    names = imports.names
    if len(sys.modules) - imports.modules_before > len({n for n in names if n in sys.modules}):
        # Modules were added without a finder (importlib.util.spec_from_file_location and a
        # sys.modules entry): look at every module, as few snippets make this necessary.
        names = list(sys.modules)
    failed, absent = _missing_modules(root, imports.asked_locally)
    status["deps"] = sorted(set(_local_modules(root, imports.display, names)) | set(failed) | set(files["read"]))
    if absent:
        status["absent"] = absent
    if files["listed"]:
        status["listed"] = files["listed"]
    if files["installed"]:
        status["installed"] = files["installed"]
    if capture.dropped:
        status["dropped"] = capture.dropped
    addresses = _addresses(capture.numbers)
    if addresses:
        status["addresses"] = addresses
    return status


class _FileRecorder:
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
        """What the end status carries: repository files opened (``read``), repository folders
        listed (``listed``), both relative to ``root``, and every other file opened that still
        exists (``installed``: absolute path -> [size, mtime_ns]; the Python installation's files
        and any other, such as a data file elsewhere on the machine), leaving out the snippet's own
        file, its working folder and the kernel's pseudo-files (/proc, /sys, /dev)."""
        prefix, scratch = os.path.join(root, ""), os.path.join(workdir, "")
        own = {os.path.join(root, display)}
        read = sorted(_relative(p, root) for p in self.opened if _is_local(p, prefix, "") and p not in own
                      and not p.startswith(scratch) and os.path.isfile(p))
        listed = sorted(_relative(p, root) for p in self.listed | {p for p in self.opened if os.path.isdir(p)}
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
        return {"read": read, "listed": listed, "installed": installed}


#: Shells whose ``-c`` argument is a command line (``subprocess.run(..., shell=True)`` runs ``/bin/sh -c``).
_SHELLS = {"sh", "bash", "dash", "zsh"}


def _pseudo(path: str) -> bool:
    """Whether ``path`` is one of the kernel's pseudo-files, whose size and time say nothing."""
    return path.startswith(("/proc/", "/sys/", "/dev/"))


def _installed(path: str) -> bool:
    """Whether ``path`` belongs to the Python installation (the standard library or an installed package)."""
    return any(path.startswith(os.path.join(place, "")) for place in {sys.prefix, sys.base_prefix, sys.exec_prefix})


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


#: docexec's own folder: its modules are never a snippet's dependencies.
_OWN_DIR = os.path.join(str(PACKAGE_DIR), "")


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
    found = set()
    prefix = os.path.join(root, "")
    for name in dict.fromkeys(names):
        path = getattr(sys.modules.get(name), "__file__", None) or ""
        if _is_local(path, prefix, display) and os.path.isfile(path):
            rel = _relative(path, root)
            if rel != display:
                found.add(rel)
    return sorted(found)


def _import_places(name: str) -> list[str]:
    """The folders an import of ``name`` looks in: the parent package's ``__path__``, else ``sys.path``."""
    parent, _, _ = name.rpartition(".")
    if parent:
        return list(getattr(sys.modules.get(parent), "__path__", None) or [])
    return [place for place in sys.path if place]


def _missing_modules(root: str, names: list[str]) -> tuple[list[str], list[str]]:
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
            files.add(_relative(candidate, root))
        elif not os.path.lexists(candidate):
            absent.add(_relative(candidate, root))
    package = os.path.join(place, last)
    if not os.path.lexists(package):
        absent.add(_relative(package, root))
        return
    for init in (os.path.join(package, "__init__" + suffix) for suffix in suffixes):
        if os.path.isfile(init):
            files.add(_relative(init, root))


def _emit_graph(capture: _Capture, namespace: dict, display: str, recorder: Recorder | None) -> End:
    """Draw the graph the snippet's named tensors hold when it finishes (``docexec.graphs.graph``), with
    a tooltip on every box and what ``recorder`` noted (``docexec.graphs.teach``); return the snippet's
    end: ok, or the error drawing it raised."""
    from docexec.graphs import graph, teach

    try:
        tensors = graph.named_tensors(namespace)
        facts = recorder.facts_about(tensors) if recorder is not None else None
        took_part = any(t.grad_fn is None and t.requires_grad and t.grad is not None for t in tensors.values())
        if graph.has_graph(tensors) or took_part:
            words = "; ".join(filter(None, [graph.describe(tensors), teach.in_words(tensors, facts)]))
            capture.emit({"graph": {"dot": graph.to_dot(tensors, notes=teach.notes(tensors, facts)), "alt": words,
                                    "caption": teach.caption(display, tensors, facts)}})
    except Exception as exc:  # noqa: BLE001 - said as the snippet's failure, with the reason
        return error_end(type(exc).__name__, f"drawing the graph the snippet left failed: {exc}", 0)
    return {"status": "ok"}


def _format_traceback(exc: BaseException) -> str:
    """The traceback without this module's own frames (they say nothing about the snippet)."""
    report = traceback.TracebackException.from_exception(exc)
    report.stack = traceback.StackSummary.from_list([f for f in report.stack if f.filename not in (__file__, "sys")])
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
