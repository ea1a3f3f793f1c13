"""The run scheduler: starts the snippets of a repository, waits for them, cancels them.

Each snippet of a run has a ``concurrent.futures.Future`` that holds its ``RunResult`` once it is
in: at once for a snippet the run cache holds, otherwise when the worker reports it. A caller can
so work on pages while the snippets run and wait only for the results it needs (the MkDocs hook
does; Material's optimize plugin holds its jobs the same way). What is in is handed out as a
read-only ``docexec.run.results.Results``.
"""

from __future__ import annotations

import os
import sys
import threading
import weakref
from concurrent.futures import Future
from concurrent.futures import wait as wait_for
from dataclasses import dataclass
from pathlib import Path

from docexec.core.records import Failure, RunResult
from docexec.run.cache import RunCache
from docexec.run.execute import (
    DEFAULT_TIMEOUT,
    ExecutionError,
    Worker,
    run_snippets,
    start_worker,
    stop_worker,
)
from docexec.run.hints import slow_imports, starts_a_program
from docexec.run.results import Results, check_claims
from docexec.source.snippets import SNIPPETS_DIR, OptionsError, decode_source, discover, options


@dataclass
class _Workers:
    """The workers a runner holds: one that waits for the next run (started early, or kept after a
    run) and the one of the run under way (often the same)."""

    kept: Worker | None = None
    running: Worker | None = None

    def stop(self) -> None:
        """Stop both: called by ``Runner.close`` and when a runner nobody closed is dropped or the
        interpreter ends (``weakref.finalize``), so that no worker outlives its runner."""
        for worker in {id(w): w for w in (self.kept, self.running) if w is not None}.values():
            if worker.poll() is None:
                stop_worker(worker, grace=0)
        self.kept = self.running = None


class Runner:
    """Runs the snippets of one repository and keeps the results of its latest run.

    One runner serves every build of a process (``mkdocs serve`` rebuilds): a worker it started
    early (``prestart``) is used by the next ``start``.

    Args:
        root: the repository root (holds ``snippets/``).
        folder: the snippets folder, relative to ``root``.
        jobs: snippets run at once (default: CPU cores).
        timeout: seconds one snippet may run.
        cache: reuse results from ``.cache/docexec`` when nothing they depend on changed
            (``docexec.run.cache``); False runs everything.
        execute: False switches execution off altogether: no snippet runs, pages show no output
            (for measuring the cost of execution; see ``tools/bench.py``).
        python: the interpreter the worker runs (default: this one). Another interpreter (another
            PyTorch, see ``docexec.versions.drift``) runs without the run cache, whose keys name this
            interpreter's torch.
        worker: a worker already started (``start_worker``, or ``hand_over`` of another runner),
            used by the first run instead of starting one: a caller that runs many small
            repositories in turn (the test suite) pays torch's import once. It must run
            ``python`` (else ``ValueError``).
    """

    def __init__(self, root: Path, folder: str = SNIPPETS_DIR, jobs: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT, cache: bool = True, execute: bool = True,
                 python: str | None = None, worker: Worker | None = None):
        if worker is not None and worker.python != (python or sys.executable):
            raise ValueError(f"a worker of {worker.python} cannot run the snippets of a runner of "
                             f"{python or sys.executable}: their results would be cached as this one's")
        self.root = Path(root).resolve()
        self.folder = folder
        self.jobs = jobs
        self.timeout = timeout
        self.python = python
        self.cache = RunCache(self.root) if cache and python is None else None
        self.execute = execute
        self.futures: dict[str, Future] = {}  # the latest run's snippets, in the order they were given
        self.executed: list[str] = []  # the paths of the latest run that had to run (not cached)
        self._sources: dict[str, bytes] = {}  # path -> bytes, read once per run
        # Each snippet's options and cache key, by the bytes they were found from: kept for the life of
        # the process (mkdocs serve rebuilds too), as nothing else a key is made of changes within it
        # (``cache.environment``, read once per process).
        self._keys: dict[str, tuple[bytes, dict, str | None]] = {}
        self._early_changed: bool | None = None  # prestart's installation_changed(), for start
        self._workers = _Workers(kept=worker)  # kept: given, started early by prestart(), or kept after a run
        weakref.finalize(self, self._workers.stop)
        self._looked = False  # prestart() found every snippet cached since the last start()
        self._thread: threading.Thread | None = None  # the run under way in the background
        self._failure: BaseException | None = None  # what it raised
        self._started = False  # whether start() was ever called
        self._stopping = False  # cancel() is stopping the run under way
        self._trusted = True  # the cache may be used (no installed module the worker imports changed)

    # -- starting -------------------------------------------------------------------------------

    def prestart(self, first_run_only: bool = False) -> None:
        """Start the worker now if some snippet will have to run: its torch import then overlaps
        with whatever the caller does before ``start``, which uses that worker.

        Args:
            first_run_only: do nothing once ``start`` has been called. For callers that are made
                again after the run (a Markdown extension is set up again for every page on some
                hosts), whose worker no run would ever use.
        """
        if not (first_run_only and self._started):  # what an earlier prestart found is not this build's
            self._early_changed = None
        if not self.execute or self._workers.kept is not None or self._looked or (first_run_only and self._started):
            return
        self._sources = {}  # a new build is starting (mkdocs serve): read the snippets as they are now
        self._early_changed = self.cache is not None and self.cache.installation_changed()
        if self._early_changed:
            self._workers.kept = start_worker(self.root)
            return
        for path in discover(self.root, self.folder):
            try:
                key = self._options_and_key(path)[1] if self.cache else None
            except (OSError, ValueError):
                key = None
            # An entry that is there is not read here: if it turns out stale (a helper changed), the
            # run starts the worker itself, only later.
            if key is None or not self.cache.has(key):
                self._workers.kept = start_worker(self.root, self.python)
                return
        self._looked = True

    def keep_ready(self) -> None:
        """Have a worker wait for the next run, with torch imported, even when the last run needed
        none (every result came from the cache). ``mkdocs serve`` asks for one after its first build,
        so that the first example an author edits costs a fork, not an import of torch. Does nothing
        if a worker already waits, a run is under way, or execution is off.

        Raises:
            ExecutionError: the worker could not be started.
        """
        busy = self._thread is not None and self._thread.is_alive()
        if self.execute and self._workers.kept is None and not busy:
            self._workers.kept = start_worker(self.root, self.python)

    def start(self, paths: list[str] | None = None, first: list[str] | None = None) -> None:
        """Begin a run of ``paths`` (default: every snippet under the folder) and return while it
        goes on: cached results are in at once, the others come in as the worker reports them, each
        checked against its claims and stored in the cache as it comes. A run of every snippet also
        drops the cache entries it did not use, so the cache does not grow with every edit.

        ``first``: snippets to run before the others, in that order (the MkDocs hook gives the
        chapters' snippets in the order it converts their notebooks, so that each notebook can be
        converted while the later chapters' snippets run). Snippets that start a program
        (``hints.starts_a_program``) go before all of them. Results keep the order of ``paths``.

        Raises:
            ExecutionError: the worker could not be started.
        """
        self.cancel()
        self.executed, self._sources, self._looked, self._started = [], {}, False, True
        if not self.execute:
            self.futures = {}
            return
        every = paths is None
        paths = discover(self.root, self.folder) if paths is None else list(paths)
        self.futures = {path: Future() for path in paths}
        found_options, keys = {}, {}
        changed = self.cache is not None and (self.cache.installation_changed() if self._early_changed is None
                                              else self._early_changed)
        self._trusted = self.cache is not None and not changed
        for path in paths:
            found = self._look_up(path, found_options, keys)
            if found is not None:
                self.futures[path].set_result(found)
        self._early_changed = None  # used once: the next build looks again
        self.executed = [p for p in paths if not self.futures[p].done()]
        if first:
            rank = {path: number for number, path in enumerate(first)}
            self.executed.sort(key=lambda path: rank.get(path, len(rank)))  # stable: the others keep their order
        self.executed.sort(key=lambda path: not starts_a_program(self.source(path)))  # longest first
        if not self.executed:  # a worker started early, or kept, waits for the next run
            self._prune(every, keys)
            return
        worker, self._workers.kept = self._workers.kept, None
        if worker is not None and (not worker.alive() or changed):  # ended, or holds what changed since
            stop_worker(worker, grace=0)
            worker = None
        self._workers.running = worker if worker is not None else start_worker(self.root, self.python)
        self._failure = None
        self._thread = threading.Thread(target=self._run, args=(found_options, keys, every), name="docexec-run",
                                        daemon=True)
        self._thread.start()

    def _look_up(self, path: str, found_options: dict, keys: dict) -> RunResult | None:
        """The cached result of ``path`` if valid, a failed result if it cannot run (not UTF-8, bad
        options), else None (it must run; its options and cache key are noted in ``found_options`` and ``keys``)."""
        try:
            data = self._bytes(path)
        except OSError as exc:  # a symbolic link to nothing, a file removed meanwhile, no permission
            self._sources[path] = b""
            return RunResult(path, Failure("Unreadable", f"cannot be read: {exc.strerror or exc}", 0))
        try:
            data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[:exc.start].count(10) + 1
            return RunResult(path, Failure("Encoding", f"is not UTF-8 text (byte 0x{data[exc.start]:02x}); "
                                                       "save it as UTF-8", line))
        try:
            found_options[path], key = self._options_and_key(path)
        except OptionsError as exc:
            return RunResult(path, Failure("Options", str(exc), exc.line))
        if self.cache is None:
            return None
        keys[path] = key
        return self.cache.get(path, keys[path]) if self._trusted else None

    def _options_and_key(self, path: str) -> tuple[dict, str | None]:
        """The options of ``path`` and its cache key (None without a cache), as found before (by
        ``prestart``, or an earlier build of this process) if the file's bytes are still those.

        Raises:
            OptionsError: as ``snippets.options``.
        """
        data = self._bytes(path)
        known = self._keys.get(path)
        if known is not None and known[0] == data:
            return known[1], known[2]
        found = options(self.source(path))
        key = self.cache.key(path, found, data) if self.cache is not None else None
        self._keys[path] = (data, found, key)
        return found, key

    def _run(self, found_options: dict, keys: dict, every: bool) -> None:
        """The background thread of a run: run the snippets that must run, keep each result as it comes."""
        def keep(result: RunResult) -> None:
            if self._stopping:  # cancel() stops the worker: what it says of the snippets it ran is dropped
                return
            check_claims(result, self.source(result.path))  # kept with the result: a warm build checks nothing again
            if self.cache is not None:
                self.cache.put(result, keys[result.path])
            self.futures[result.path].set_result(result)

        try:
            run_snippets(self.root, self.executed, jobs=self.jobs, timeout=self.timeout, options=found_options,
                         needs={p: slow_imports(self.source(p)) for p in self.executed}, worker=self._workers.running,
                         on_result=keep, keep=True)
            if self._stopping:
                raise ExecutionError("the run was stopped")
            # kept, with torch imported: the next run (mkdocs serve) forks at once; not one an example ended
            if self._workers.running is not None and self._workers.running.poll() is None:
                self._workers.kept = self._workers.running
            self._prune(every, keys)
        except BaseException as exc:  # noqa: BLE001 - handed to whoever waits
            failure = ExecutionError("the run was stopped") if self._stopping else exc
            self._failure = failure
            self._fail_pending(failure)
        finally:
            self._workers.running = None

    def _prune(self, every: bool, keys: dict) -> None:
        if every and self.cache is not None:
            self.cache.prune(set(keys.values()), self.folder)

    def _fail_pending(self, exc: BaseException) -> None:
        for future in self.futures.values():
            if not future.done():
                future.set_exception(exc)

    # -- waiting and stopping -------------------------------------------------------------------

    def wait(self, paths: list[str] | None = None) -> Results:
        """Wait until the results of ``paths`` (default: the whole run started last) are in.

        Without ``paths`` the run is over when this returns (its thread ended, the cache pruned).
        Interrupted (Ctrl-C), it stops the run before re-raising.

        Returns:
            The results of ``paths`` (``results(paths)``), without ``paths`` what is in now.

        Raises:
            ExecutionError: the run failed (the worker died); raised by every later wait too, until
                the next ``start``. Also for a result of ``paths`` that never came in (the run was
                cancelled).
            KeyError: a path that is not part of the run.
        """
        if not self.execute:
            return self.results()
        try:
            if paths is None:
                if self._thread is not None:
                    self._thread.join()
            else:
                wait_for([self.futures[path] for path in paths])
        except BaseException:
            self.cancel()
            raise
        if self._failure is not None:
            raise self._failure
        for path in paths or []:
            if self.futures[path].exception() is not None:
                raise self.futures[path].exception()
        return self.results(paths)

    def results(self, paths: list[str] | None = None) -> Results:
        """A read-only view of the results in now, in the order of the run's paths; with ``paths``,
        of those only, in their order (a chapter's notebook needs its chapter's, not a view of every run).

        Raises:
            KeyError: a path that is not part of the run.
        """
        futures = self.futures if paths is None else {path: self.futures[path] for path in paths}
        runs = {path: future.result() for path, future in futures.items()
                if future.done() and not future.cancelled() and future.exception() is None}
        executed = [path for path in self.executed if path in futures]
        return Results(self.root, self.folder, runs, {path: self.source(path) for path in runs}, executed, self.execute)

    def cancel(self) -> None:
        """Stop a run under way, if any: its worker and snippets are ended (SIGTERM, then SIGKILL
        after 5 s; see ``docexec.run.execute``), its thread waited for; what it raised is dropped, and
        the results that had not come in fail with ``ExecutionError``."""
        thread = self._thread
        if thread is None:
            return
        self._stopping = True
        proc = self._workers.running
        if proc is not None and proc.poll() is None:
            stop_worker(proc)
        thread.join()
        self._thread = None
        self._failure = None
        self._stopping = False
        self._fail_pending(ExecutionError("the run was stopped"))

    def hand_over(self) -> Worker | None:
        """The worker kept after the last run (torch imported, waiting), taken out of this runner so
        that another runner can use it (``Runner(worker=...)``); None if there is none or a run is
        under way. The worker's processes start from what it imported before: a caller whose run must
        see a fresh worker starts one instead."""
        if self._thread is not None and self._thread.is_alive():
            return None
        worker, self._workers.kept = self._workers.kept, None
        return worker if worker is not None and worker.alive() else None

    def close(self) -> None:
        """Stop a run under way and a worker started early: nothing of this runner keeps running."""
        self.cancel()
        self._workers.stop()

    # -- what the run is made of ----------------------------------------------------------------

    def source(self, path: str) -> str:
        """The text of ``path`` (relative to the root) exactly as stored (see ``snippets.read_source``),
        read once per run: what the results of that run are keyed, checked and shown against. A file
        that is not UTF-8 (which cannot run: its result says so) reads with U+FFFD for its bad bytes."""
        data = self._bytes(path)
        try:
            return decode_source(data)
        except UnicodeDecodeError:
            return data.decode("utf-8-sig", "replace")

    def _bytes(self, path: str) -> bytes:
        if path not in self._sources:
            with open(os.path.join(self.root, path), "rb") as handle:
                self._sources[path] = handle.read()
        return self._sources[path]
