"""The worker's scheduler: forks one process per snippet, at most ``jobs`` at once, and reports each.

The worker (``python -m docexec.run.worker``) imports torch once (``preload``); each snippet then runs
in a process forked from it (``docexec.run.worker.child``), so that it starts from that state and
whatever global state it changes dies with it. A group of snippets that needs a slow module
(``docexec.run.protocol.Group.preload``) runs in a sub-worker forked from the worker, which imports
that module while the first group's snippets already run. The worker and its sub-workers share
``jobs`` slots (``Slots``). A snippet that hangs, exits or crashes is reported as that snippet's
failure while the others keep running.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field

from docexec.core.files import PACKAGE_DIR
from docexec.run.protocol import Group, Report, Request, error_end, read_events
from docexec.run.worker.child import run_child
from docexec.run.worker.preload import prepare, record_installation
from docexec.run.worker.processes import adopt_orphans, die_with_parent, end_descendants


class Slots:
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

    def close(self) -> None:
        os.close(self.read_fd)
        os.close(self.write_fd)


@dataclass
class Running:
    """A snippet process this (sub-)worker started and has not reaped yet."""

    display: str  # the snippet's path relative to the root
    folder: str  # its scratch folder: working directory, events and raw output files
    started: float  # time.monotonic() at its fork
    limit: float  # its timeout, in seconds
    exit_fd: int | None  # readable once it ends (a pidfd), or None where there is none

    @property
    def events_path(self) -> str:
        return os.path.join(self.folder, "events.jsonl")

    @property
    def raw_path(self) -> str:
        return os.path.join(self.folder, "raw.txt")


@dataclass
class Feed:
    """A sub-worker, seen from the worker through the read end of its result pipe."""

    pid: int
    waiting: list[str]  # its snippets not yet answered for
    rest: bytes = b""  # what it wrote that is not a whole line yet
    held: dict[int, str] = field(default_factory=dict)  # its snippet processes running: pid -> snippet


@dataclass
class _Live:
    """What a signal handler must stop: running snippets (each leads its group), sub-workers by fd."""

    running: dict[int, Running] = field(default_factory=dict)
    feeds: dict[int, Feed] = field(default_factory=dict)


LIVE = _Live()


def stop_everything(signum, frame) -> None:  # noqa: ARG001 - a signal handler's signature
    """On SIGTERM or SIGINT: stop every snippet this process runs (with what they started) and
    every sub-worker (which does the same for its own), then end with status 128 + the signal.

    The build sends SIGTERM when it gives up on the worker; Ctrl-C in a terminal sends SIGINT to
    the build, the worker and its sub-workers, but not to the snippets, which run in process
    groups of their own.
    """
    for pid in list(LIVE.running):
        kill_group(pid)
    for feed in list(LIVE.feeds.values()):
        with contextlib.suppress(ProcessLookupError):
            os.kill(feed.pid, signal.SIGTERM)
    os._exit(128 + signum)


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def serve(request: Request, out) -> None:
    """Run every snippet of ``request``, at most ``jobs`` at once; write one report line each to ``out``.
    A group that needs modules not yet imported runs in a sub-worker: this process serves later requests."""
    versions = {"torch": sys.modules["torch"].__version__, "python": sys.version.split()[0]}  # preload imported it
    slots = Slots(request.jobs)
    adopt_orphans()
    first, *others = request.merged(lambda module: module in sys.modules)
    if any(module not in sys.modules for module in first.preload):
        first, others = Group([], []), [first, *others]
    worker = os.getpid()
    for group in others:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:
            _sub_worker(request, group, slots, versions, read_fd, write_fd, worker)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        LIVE.feeds[read_fd] = Feed(pid, list(group.snippets))
    prepare(first.preload)
    record_installation(request.root, first.preload, worker=True)
    try:
        _Group(request, first.snippets, slots, versions, out).run()
    finally:
        slots.close()  # a worker that serves request after request keeps no pipe of an old one


def _sub_worker(request: Request, group: Group, slots: Slots, versions: dict, read_fd: int, write_fd: int,
                worker: int) -> None:
    """In a forked sub-worker: import the group's modules, run its snippets, then end (never returns)."""
    status = 70
    feeds = list(LIVE.feeds)
    LIVE.running.clear()
    LIVE.feeds.clear()  # the worker's own are not this process's
    try:
        die_with_parent(signal.SIGTERM, worker)  # stop_everything then stops its snippets
        os.close(read_fd)
        for fd in feeds:
            os.close(fd)
        adopt_orphans()  # not inherited across fork
        prepare(group.preload)
        record_installation(request.root, group.preload)
        with os.fdopen(write_fd, "w", encoding="utf-8") as pipe:
            _Group(request, group.snippets, slots, versions, pipe, announce=True, parent=worker).run()
        status = 0
    except BaseException:  # noqa: BLE001 - said on the worker's stderr; its snippets are reported
        traceback.print_exc()
    finally:
        os._exit(status)


class _Group:
    """Runs one group's snippets in this process (the worker, or a sub-worker) and passes on the
    reports of the sub-workers in ``LIVE.feeds`` (the worker's only).

    With ``announce`` (in a sub-worker), also writes a ``+<pid> <snippet>`` line for each snippet
    process started and a ``-<pid>`` line for each one ended, so that the worker can stop the
    processes of a sub-worker that died and give back their slots. ``parent`` is the pid of the
    process that must outlive this one (the build, or for a sub-worker the worker; default: the
    parent now): once it is no longer this process's parent, this ends as on SIGTERM.
    """

    def __init__(self, request: Request, snippets: list[str], slots: Slots, versions: dict, out,
                 announce: bool = False, parent: int | None = None):
        self.request = request
        self.pending = list(snippets)
        self.slots = slots
        self.versions = versions
        self.out = out
        self.announce = announce
        self.scratch = tempfile.mkdtemp(prefix="docexec-")
        self.counter = 0
        self.parent = os.getppid() if parent is None else parent

    def run(self) -> None:
        running = LIVE.running
        while self.pending or running or LIVE.feeds:
            if os.getppid() != self.parent:
                # The build ended (killed by SIGTERM, say) or, for a sub-worker, the worker died (a
                # snippet of its own killed it): nobody reads what this writes, and in a sub-worker
                # the slots the worker held never come back. End as on SIGTERM, stopping every snippet.
                stop_everything(signal.SIGTERM, None)
            while self.pending and self.slots.take():
                self._start(self.pending.pop(0))
            busy = any([self._reap(pid) for pid in list(running)])
            busy = _pass_on(self.out, self.versions, self.slots) or busy
            if not busy:
                _wait_for_work(running, LIVE.feeds, self.slots if self.pending else None)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _start(self, display: str) -> None:
        self.counter += 1
        folder = os.path.join(self.scratch, str(self.counter))
        os.makedirs(os.path.join(folder, "cwd"))
        limits = self.request.limits(display)
        proc = Running(display, folder, 0.0, limits.timeout, None)
        open(proc.events_path, "w").close()
        open(proc.raw_path, "w").close()
        self.out.flush()
        me = os.getpid()
        # In a sub-worker, the snippet starts only once the worker has been told it holds a slot:
        # a snippet that kills the sub-worker at once must not take the slot with it.
        go_read, go_write = os.pipe() if self.announce else (-1, -1)
        pid, started = os.fork(), time.monotonic()  # the child's clock too: its traceback is due before its end
        if pid == 0:
            try:
                if go_read >= 0:
                    os.close(go_write)
                    os.read(go_read, 1)
                    os.close(go_read)
                run_child(self.request.root, display, proc.events_path, proc.raw_path, os.path.join(folder, "cwd"),
                          limits, stop_handler=stop_everything, parent=me, started=started)
            finally:
                os._exit(70)
        proc.started = started
        proc.exit_fd = _exit_fd(pid)
        LIVE.running[pid] = proc
        if not self.announce:  # the build learns which snippets ran should this worker die
            self.out.write(json.dumps({"started": display}) + "\n")
            self.out.flush()
        else:
            os.close(go_read)
            self.out.write(f"+{pid} {display}\n")
            self.out.flush()
            os.write(go_write, b"+")
            os.close(go_write)

    def _reap(self, pid: int) -> bool:
        """Report snippet process ``pid`` if it has ended or ran past its timeout (then stopped).
        True if it was reported."""
        proc = LIVE.running[pid]
        done, wait_status = os.waitpid(pid, os.WNOHANG)
        timed_out = False
        if done == 0:
            if time.monotonic() - proc.started <= proc.limit:
                return False
            kill_group(pid)
            os.waitpid(pid, 0)
            timed_out = True
        kill_group(pid)  # whatever the snippet started and left running
        del LIVE.running[pid]
        # and what it started in sessions of their own, orphaned when it was killed (adopt_orphans)
        end_descendants(set(LIVE.running) | {feed.pid for feed in LIVE.feeds.values()})
        if proc.exit_fd is not None:
            os.close(proc.exit_fd)
        self.slots.give()
        if self.announce:
            self.out.write(f"-{pid}\n")
        self._report(proc, wait_status, timed_out)
        shutil.rmtree(proc.folder, ignore_errors=True)
        return True

    def _report(self, proc: Running, wait_status: int, timed_out: bool) -> None:
        found = read_events(proc.events_path, proc.raw_path)
        events, end, raw = found.events, found.end, found.raw
        report: Report = {"path": proc.display, "events": events, "raw": raw, "versions": self.versions, "end": end,
                          "seconds": round(time.monotonic() - proc.started, 3)}
        if timed_out:
            report["end"] = error_end("Timeout", f"the snippet ran longer than {proc.limit:g} s and was stopped",
                                      _crash_line(report), _crash_trace(raw))
        elif end is not None and end.get("late") and end["status"] == "ok":  # it ended just before its timeout
            written = dict(report, raw="".join(event.get("o", "") for event in events) + raw)  # the dump among it
            report["end"] = error_end("Timeout", f"the snippet ran up to its time limit ({proc.limit:g} s)",
                                      _crash_line(written), _crash_trace(written["raw"]))
        elif end is None:
            report["end"] = error_end("Crash", describe_exit(wait_status), _crash_line(report), _crash_trace(raw))
        if end is None and found.cut:  # what the process wrote past the room, as an end it wrote would say
            report["end"]["dropped"] = found.cut
        self.out.write(json.dumps(report) + "\n")
        self.out.flush()


def _exit_fd(pid: int) -> int | None:
    """A descriptor readable once child ``pid`` ends (``os.pidfd_open``, Linux 5.3+), or None; the caller closes it."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _wait_for_work(running: dict[int, Running], feeds: dict[int, Feed], slots: Slots | None) -> None:
    """Sleep until a child ends, a sub-worker writes, a slot is free (if ``slots`` is given) or the
    next timeout is due, whichever comes first; every 2 ms where a child has no exit descriptor."""
    watched = [proc.exit_fd for proc in running.values() if proc.exit_fd is not None] + list(feeds)
    if slots is not None:
        watched.append(slots.read_fd)
    if any(proc.exit_fd is None for proc in running.values()):
        wait = 0.002
    else:
        now = time.monotonic()
        wait = min([1.0] + [proc.started + proc.limit - now for proc in running.values()])
    try:
        select.select(watched, [], [], max(0.0, wait) + 0.001)
    except (OSError, ValueError):
        time.sleep(0.002)


def _pass_on(out, versions: dict, slots: Slots) -> bool:
    """Copy the complete report lines the sub-workers wrote so far to ``out``; when one has ended,
    report each of its snippets it did not answer for as crashed. True if anything was read."""
    read_any = False
    for fd, feed in list(LIVE.feeds.items()):
        try:
            data = os.read(fd, 1 << 20)
        except BlockingIOError:
            continue
        read_any = True
        if data:
            _pass_lines(feed, data, out)
        else:
            _sub_worker_ended(fd, feed, out, versions, slots)
    return read_any


def _pass_lines(feed: Feed, data: bytes, out) -> None:
    *lines, feed.rest = (feed.rest + data).split(b"\n")
    for line in lines:
        if line[:1] == b"+":
            pid_text, _, display = line[1:].decode("utf-8").partition(" ")
            feed.held[int(pid_text)] = display
            out.write(json.dumps({"started": display}) + "\n")
        elif line[:1] == b"-":
            feed.held.pop(int(line[1:]), None)
        else:
            out.write(line.decode("utf-8") + "\n")
            feed.waiting.remove(json.loads(line)["path"])
    out.flush()


def _sub_worker_ended(fd: int, feed: Feed, out, versions: dict, slots: Slots) -> None:
    os.close(fd)
    del LIVE.feeds[fd]
    _, wait_status = os.waitpid(feed.pid, 0)
    for child in feed.held:  # snippet processes it left running: stopped here, their slots given back
        kill_group(child)
        slots.give()
    running_then = set(feed.held.values())
    for display in feed.waiting:
        what = "running it" if display in running_then else "that was to run it"
        end = error_end("Crash", f"the sub-worker {what} ended first: " + describe_exit(wait_status))
        report: Report = {"path": display, "events": [], "raw": "", "versions": versions, "seconds": 0.0, "end": end}
        out.write(json.dumps(report) + "\n")
    out.flush()


def _crash_line(report: Report) -> int:
    """The snippet line in faulthandler's traceback (innermost first), else the last line that wrote."""
    found = re.findall(rf'File "{re.escape(report["path"])}", line (\d+)', report["raw"])
    if found:
        return int(found[0])
    lines = [event.get("l", 0) for event in report["events"] if event.get("l")]
    return lines[-1] if lines else 0


#: A frame of faulthandler's dump that is the engine's, not the snippet's: docexec's own files, the
#: frames it runs a snippet under (named ``sys``, as Python names the frame above a module) and
#: the interpreter's frozen start-up modules.
_ENGINE_FRAME = re.compile(r'\s*File "(?:sys|<frozen [^"]*>|'
                           + re.escape(str(PACKAGE_DIR) + os.sep)
                           + r'[^"]*)", line \d+ in ')


def _crash_trace(raw: str) -> str:
    """faulthandler's dump at the end of ``raw`` (a crash or a timeout), without the engine's frames."""
    start = max(raw.rfind("Fatal Python error"), raw.rfind("Timeout ("), raw.rfind("Thread 0x"))
    if start < 0:
        return ""
    return "\n".join(line for line in raw[start:].strip().splitlines() if not _ENGINE_FRAME.match(line))


def describe_exit(wait_status: int) -> str:
    """In words: how a process that ended with ``wait_status`` (``os.waitpid``) ended."""
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        return f"the interpreter was killed by {name}"
    return f"the interpreter exited with status {os.WEXITSTATUS(wait_status)} (os._exit or a crash)"
