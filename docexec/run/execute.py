"""Run snippets through the worker process and return what each run printed.

The caller (the MkDocs hook, ``python -m docexec``, the tests) never imports torch itself: it
starts ``python -m docexec.run.worker`` once per call, which imports torch once and forks one child per
snippet (see ``docexec.run.worker`` for why).
"""

from __future__ import annotations

import functools
import json
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from docexec.core.records import Failure, RunResult, from_report
from docexec.run.protocol import Group, Request, worker_environment

#: Seconds a snippet may run before it is stopped: the slowest took 25 s on this 2-core machine while
#: other builds ran, and a cold build under that load must not fail for time.
DEFAULT_TIMEOUT = 120.0
DEFAULT_MEMORY_MB = 4096.0  # MiB of address space a snippet may add to the worker's own


class ExecutionError(RuntimeError):
    """The worker itself failed (not a snippet): it could not start or did not answer."""


class Worker:
    """A running ``python -m docexec.run.worker`` and its pipes, read by threads of its own for as long
    as it lives (so that no pipe fills up: a worker blocked on a full pipe would stop enforcing
    timeouts while the caller works on a result). It serves one request after another
    (``run_snippets(keep=True)``) until its standard input ends. ``python`` is the interpreter it
    runs (its torch is the one its snippets see)."""

    def __init__(self, proc: subprocess.Popen, python: str = sys.executable):
        self.proc = proc
        self.python = python
        self.stopped = False  # stop_worker ended it (the build cancelled its run), not a snippet
        self.lines: queue.Queue[str | None] = queue.Queue()  # its report lines; None once it ended
        self.stderr: list[str] = []
        self._readers = [threading.Thread(target=self._read_reports, daemon=True),
                         threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self._readers:
            thread.start()

    def _read_reports(self) -> None:
        try:
            for line in self.proc.stdout:
                self.lines.put(line)
        finally:
            self.lines.put(None)

    def _read_stderr(self) -> None:
        for line in self.proc.stderr:
            self.stderr.append(line)

    def send(self, request: Request, last: bool) -> None:
        """Write ``request`` (one line); with ``last``, close the worker's input: it ends after it."""
        try:
            self.proc.stdin.write(request.dumps() + "\n")
            self.proc.stdin.flush()
            if last:
                self.proc.stdin.close()
        except (BrokenPipeError, OSError, ValueError):  # the worker ended early: the missing results say so
            pass

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self) -> str:
        return " | ".join("".join(self.stderr).strip().splitlines()[-5:])

    # what tests and callers used from the process itself
    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def poll(self) -> int | None:
        return self.proc.poll()

    def wait(self, timeout: float | None = None) -> int:
        return self.proc.wait(timeout)

    def kill(self) -> None:
        self.proc.kill()

    def send_signal(self, signum: int) -> None:
        self.proc.send_signal(signum)


def start_worker(root: Path, python: str | None = None) -> Worker:
    """Start ``python -m docexec.run.worker`` now, so that it imports torch while the caller does other
    work; hand it to ``run_snippets(worker=...)`` later.

    Raises:
        ExecutionError: the worker could not be started.
    """
    env = worker_environment(os.environ)
    try:
        # a process group of its own: an example that signals its parent's group (os.killpg) reaches
        # the worker, not the build; the worker ends with the build all the same (it watches its parent)
        proc = subprocess.Popen([python or sys.executable, "-m", "docexec.run.worker"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=str(root),
                                process_group=0)
    except OSError as exc:
        raise ExecutionError(f"could not start the snippet worker: {exc}") from exc
    return Worker(proc, python or sys.executable)


def run_snippets(
    root: Path,
    paths: list[str],
    *,
    jobs: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: float | None = DEFAULT_MEMORY_MB,
    options: dict[str, dict] | None = None,
    python: str | None = None,
    needs: dict[str, list[str]] | None = None,
    worker: Worker | None = None,
    on_result: Callable[[RunResult], None] | None = None,
    keep: bool = False,
    again: bool = True,
) -> dict[str, RunResult]:
    """Execute snippets, each isolated in its own process, torch imported once for all of them.

    Args:
        root: the repository root; every path is relative to it.
        paths: snippet paths relative to ``root`` (``snippets/<chapter>/<example>.py``).
        jobs: how many snippets run at once (default: the number of CPU cores).
        timeout: seconds each snippet may run before it is stopped and reported.
        memory_mb: MiB of memory each snippet may allocate before it is stopped (None: no limit).
        options: per-snippet options, by path: ``{"timeout": s, "memory_mb": MiB, "figure": kinds}``
            (see ``docexec.source.snippets.options``).
        python: the interpreter to use (default: the current one).
        needs: modules to import once before forking, by snippet path (e.g. ``torch._dynamo``,
            which optimizers and checkpointing import lazily and slowly), so that its children
            do not. Snippets that need the same modules form a group; a group with modules to
            import runs in a sub-worker that imports them while the other snippets already run
            (see ``docexec.run.worker``).
        worker: a worker from ``start_worker`` to use instead of starting one.
        on_result: called with each ``RunResult`` as soon as the worker reports it, in this thread,
            while the other snippets still run (work done there overlaps with theirs). If it
            raises, the worker is stopped and the exception propagates.
        keep: leave the worker running, ready for the next request (``mkdocs serve``: an edited
            example then costs a fork, not an import of torch); else it ends after this one.
        again: when the worker dies (an example killed it; not Ctrl-C), run once more, in a
            worker of their own, the examples it had not started (together) and those it ran beside the
            one to blame (one at a time): one bad example does not fail the others.

    Returns:
        A dict from path to ``RunResult``, in the order of ``paths``.

    Raises:
        ExecutionError: the worker could not be started or ended without answering for every snippet.
    """
    if not paths:
        if worker is not None and not keep:
            stop_worker(worker, grace=0)
        return {}
    request = _request(root, paths, jobs, timeout, memory_mb, options, needs)
    worker = worker or start_worker(root, python)
    worker.send(request, last=not keep)
    try:
        results, started, done = _collect(worker, on_result)
    except BaseException:
        stop_worker(worker)  # its threads are daemons: not waited for, a snippet may hold the pipes a while
        raise
    if not keep:
        worker.wait()
    missing = [p for p in paths if p not in results]
    if not done or missing:
        # a snippet ended the worker: not the build stopping its run, nor Ctrl-C (which also ends the build)
        by_a_snippet = not worker.stopped and worker.poll() not in (128 + signal.SIGINT, -signal.SIGINT)
        lost = _account_for(worker, missing, started | set(results), done)
        if again and by_a_snippet:
            rerun = functools.partial(run_snippets, root, jobs=jobs, timeout=timeout, memory_mb=memory_mb,
                                      options=options, python=worker.python, needs=needs)
            lost.update(_run_again(rerun, lost, started))
        for path in missing:
            results[path] = lost[path]
            if on_result is not None:
                on_result(results[path])
    return {p: results[p] for p in paths}


def _run_again(rerun: Callable[[list[str]], dict[str, RunResult]], lost: dict[str, RunResult],
               started: set[str]) -> dict[str, RunResult]:
    """The examples a dead worker left without a result, run again by ``rerun``: those it never
    started in one worker (which runs again what a next killer among them leaves: each round takes at
    least the examples it was running out), those it was running (one of them is to blame) each in a
    worker of its own, not run again if that one dies too."""
    waiting = [path for path in lost if path not in started]
    running = [path for path in lost if path in started]
    found = rerun(waiting) if waiting else {}
    if len(running) > 1:
        for path in running:
            found.update(rerun([path], again=False))
    return found


def _request(root: Path, paths: list[str], jobs: int | None, timeout: float, memory_mb: float | None,
             options: dict[str, dict] | None, needs: dict[str, list[str]] | None) -> Request:
    """The request for ``paths``: snippets that need the same modules imported form a group, the
    group with the fewest modules first (the worker runs it without waiting)."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for path in paths:
        modules = tuple(dict.fromkeys((needs or {}).get(path, [])))
        groups.setdefault(modules, []).append(path)
    return Request(
        root=str(Path(root).resolve()), jobs=jobs or os.cpu_count() or 1, timeout=timeout, memory_mb=memory_mb,
        options=options or {},
        groups=[Group(list(modules), members) for modules, members in sorted(groups.items(), key=lambda i: len(i[0]))],
        order=list(paths),
    )


def _account_for(worker: Worker, missing: list[str], started: set, done: bool) -> dict[str, RunResult]:
    """The worker ended without answering for ``missing``: if it died, each of them fails, saying why.

    Raises:
        ExecutionError: it answered but left some out, or it ended before running anything.
    """
    if worker.poll() is None and not done:
        stop_worker(worker)
    status, tail = worker.poll(), worker.stderr_tail()
    if done:
        raise ExecutionError(f"the snippet worker did not answer for {', '.join(missing)}")
    if not started:  # it ended before running anything: it cannot run (no torch, say)
        raise ExecutionError(f"the snippet worker exited with status {status} before running any snippet"
                             + (f": {tail}" if tail else ""))
    running = started & set(missing)  # the worker died: each snippet it did not answer for fails, saying why
    return {path: _lost(path, running, status, tail) for path in missing}


def _collect(worker: Worker, on_result: Callable[[RunResult], None] | None) -> tuple[dict, set, bool]:
    """Read the worker's lines until it says the request is done or its output ends: the results by
    path (each handed to ``on_result`` as it comes), the snippets it started, and whether it was done."""
    results: dict[str, RunResult] = {}
    started: set[str] = set()
    while (line := worker.lines.get()) is not None:
        data = json.loads(line) if line.strip() else None
        if data is None:
            continue
        if data.get("done"):
            return results, started, True
        if "started" in data:
            started.add(data["started"])
            continue
        result = from_report(data["path"], data.get("events", []), data.get("end"), raw=data.get("raw", ""),
                             versions=data.get("versions", {}), seconds=float(data.get("seconds", 0.0)))
        results[result.path] = result
        if on_result is not None:
            on_result(result)
    return results, started, False


def _lost(path: str, running: set[str], status: int | None, tail: str) -> RunResult:
    """The failed result of a snippet the worker never answered for, because it ended (status
    ``status``; -9 when killed by SIGKILL, as a snippet that kills its parent does) while it ran
    the snippets ``running``."""
    how = f"ended with status {status}" if status is None or status >= 0 else f"was killed by signal {-status}"
    if path in running:
        others = sorted(running - {path})
        message = (f"the worker running the examples {how} while it ran this example"
                   + (f" and {', '.join(others)}" if others else "")
                   + ("; one of them" if others else "; it") + " may end its parent process")
    else:
        message = f"not run: the worker running the examples {how} before this example started"
    return RunResult(path, Failure("Crash", message + (f": {tail}" if tail else "")))


def stop_worker(worker: Worker, grace: float = 5.0) -> None:
    """End the worker: SIGTERM first, on which it stops its snippets and sub-workers
    (``docexec.run.worker.pool.stop_everything``), then SIGKILL if it has not ended after ``grace`` seconds."""
    worker.stopped = True
    try:
        worker.send_signal(signal.SIGTERM)
        worker.wait(grace)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()
