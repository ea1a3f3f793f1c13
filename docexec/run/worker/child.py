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
import linecache
import os
import random
import signal
import sys
import time
import traceback
import types

from docexec.core import compat
from docexec.run.protocol import End, Limits, error_end
from docexec.run.worker.capture import Capture, TextCapture, install_print
from docexec.run.worker.processes import adopt_orphans, die_with_parent, end_descendants
from docexec.run.worker.reads import FileReads, ImportReads, local_modules, missing_modules
from docexec.run.worker.record import Recorder
from docexec.source.snippets import FORWARD, split_lines


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


def _isolate(events_path: str, raw_path: str) -> tuple[Capture, int]:
    """Point file descriptors 0-2 at /dev/null and the raw output file, lead a process group of
    our own (so a timeout also stops what the snippet starts), and close every other inherited
    descriptor (so nothing the snippet starts can hold the worker's answer pipe open).

    Returns:
        The capture, and a descriptor for the crash log (faulthandler's tracebacks land in the raw output).
    """
    events_fd = os.open(events_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    raw_fd = os.open(raw_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    capture = Capture(events_fd, os.open(raw_path, os.O_RDONLY))
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
              stop_handler=None, parent: int = 0, started: float | None = None) -> None:
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
        started: ``time.monotonic()`` when the worker forked this process, from which it counts the
            timeout (a sub-worker's child waits for its slot first, and set-up takes time on a busy
            machine): the traceback is due 0.2 s before that end, not 0.2 s before the timeout
            counted from here.
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
        now = time.monotonic()  # read first: the dump is never earlier
        wait = max(0.05, (started if started is not None else now) + limits.timeout - 0.2 - now)
        dump_due = now + wait
        faulthandler.dump_traceback_later(wait, file=crash_log)
    imports, files = ImportReads(root, display), FileReads()
    sys.addaudithook(files)
    files.watch(root, display)
    adopt_orphans()
    _forget_inherited_finalizers()
    own = os.getpid()
    recorder = Recorder(limits.recorded) if limits.recorded else None
    status, namespace = _execute(root, display, workdir, capture, imports, limits, files, recorder)
    if os.getpid() != own:  # a process the snippet forked, which ran on to the end of the file
        _end_forked(status)
    if status["status"] == "ok" and limits.drawn:
        status = _emit_graph(capture, namespace, display, recorder, limits)
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


def _execute(root: str, display: str, workdir: str, capture: Capture, imports: ImportReads,
             limits: Limits, files: FileReads, recorder: Recorder | None = None) -> tuple[End, dict]:
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
        sys.stdout = TextCapture(capture, display, "<stdout>")
        sys.stderr = TextCapture(capture, display, "<stderr>")
        sys.argv = [display]
        sys.path.insert(0, os.path.dirname(path))
        install_print(capture, display)
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
        _as_main(code, namespace, capture.below)
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


def _as_main(code, namespace: dict, below: set, depth: int = 8) -> None:
    """Run ``code`` below the ``sys`` frames of ``_AS_MAIN``, whose code goes into ``below``."""
    scope: dict = {}
    exec(_AS_MAIN, scope)
    below.add(scope["_enter"].__code__)
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


def _finish(status: End, root: str, capture: Capture, imports: ImportReads, files: dict) -> End:
    """``status`` with what every end carries: own time, dependencies (``files``: what
    ``FileReads.sorted_out`` gives), dropped output."""
    if capture.started:
        status["own_seconds"] = round((capture.ended or time.perf_counter()) - capture.started, 4)
    names = imports.names
    if len(sys.modules) - imports.modules_before > len({n for n in names if n in sys.modules}):
        # Modules were added without a finder (importlib.util.spec_from_file_location and a
        # sys.modules entry): look at every module, as few snippets make this necessary.
        names = list(sys.modules)
    failed, absent = missing_modules(root, imports.asked_locally)
    status["deps"] = sorted(set(local_modules(root, imports.display, names)) | set(failed) | set(files["read"]))
    if absent or files["absent"]:
        status["absent"] = sorted(set(absent) | set(files["absent"]))
    if files["listed"]:
        status["listed"] = files["listed"]
    if files["installed"]:
        status["installed"] = files["installed"]
    if files["env"]:
        status["env"] = files["env"]
    if capture.dropped:
        status["dropped"] = capture.dropped
    if capture.unattributed:  # 0: drained when the snippet had ended (a child process's last words)
        status["unattributed"] = sorted(capture.unattributed)
    addresses = _addresses(capture.numbers)
    if addresses:
        status["addresses"] = addresses
    return status


def _emit_graph(capture: Capture, namespace: dict, display: str, recorder: Recorder | None, limits: Limits) -> End:
    """Draw the graph the snippet's named tensors (or those its option ``draw`` names) hold when it
    finishes (``docexec.graphs.graph``), with a tooltip on every box and what ``recorder`` noted
    (``docexec.graphs.teach``); return the snippet's end: ok, or the error drawing it raised (a name
    of ``draw`` that holds no tensor: at the option's line). Tensor subclasses' own code does not run
    while it draws (``__torch_function__`` could print into the output), and a tensor that cannot be
    drawn alone (a subclass whose ``shape`` raises, say) is left out, since ``python file.py`` never
    draws it."""
    import torch

    from docexec.graphs import graph

    with torch._C.DisableTorchFunctionSubclass():
        try:
            tensors = graph.chosen_tensors(namespace, limits.draw) if limits.draw else graph.named_tensors(namespace)
        except graph.DrawError as exc:
            return error_end("Options", str(exc), limits.draw_line)
        try:
            _draw(capture, tensors, namespace, display, recorder)
        except Exception as exc:  # noqa: BLE001 - said as the snippet's failure, with the reason
            drawable = {name: tensor for name, tensor in tensors.items() if _draws_alone(name, tensor)}
            try:
                if len(drawable) == len(tensors) or limits.draw:
                    raise
                _draw(capture, drawable, namespace, display, recorder)
            except Exception:  # noqa: BLE001 - the first error is the one to report
                return error_end(type(exc).__name__, f"drawing the graph the snippet left failed: {exc}", 0)
    return {"status": "ok"}


def _draw(capture: Capture, tensors: dict, namespace: dict, display: str, recorder: Recorder | None) -> None:
    """Emit the figure of ``tensors`` (nothing when they hold no graph and took no part in one)."""
    from docexec.graphs import graph, teach

    facts = recorder.facts_about(tensors) if recorder is not None else None
    if facts is not None and FORWARD in facts.kinds:  # the operations forward mode ran, not the graph
        if facts.tangents:
            from docexec.graphs import forward_figure

            capture.emit({"graph": forward_figure.figure(display, tensors, facts)})
        return
    took_part = any(t.grad_fn is None and t.requires_grad and t.grad is not None for t in tensors.values())
    if graph.has_graph(tensors) or took_part:
        words = "; ".join(filter(None, [graph.describe(tensors), teach.in_words(tensors, facts)]))
        notes = teach.notes(tensors, facts, teach.parameter_names(namespace))
        capture.emit({"graph": {"dot": graph.to_dot(tensors, notes=notes), "alt": words,
                                "caption": teach.caption(display, tensors, facts)}})


def _draws_alone(name: str, tensor) -> bool:
    """Whether ``tensor`` can be drawn and described on its own."""
    from docexec.graphs import graph

    try:
        graph.to_dot({name: tensor})
        graph.describe({name: tensor})
        tensor.grad_fn is None and tensor.requires_grad and tensor.grad  # noqa: B018 - read as _draw reads it
    except Exception:  # noqa: BLE001 - whatever a subclass's property raises
        return False
    return True


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
