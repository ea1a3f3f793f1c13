"""One build's worth of snippet runs: execute, check claims, hand out each include's output.

A ``Session`` is what the MkDocs hook, the Markdown extension, ``python -m docexec`` and the tests
share, so all of them run the same code on the same results.
"""

from __future__ import annotations

import atexit
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path

from . import claims, figures
from .cache import RunCache
from .execute import DEFAULT_TIMEOUT, RunResult, run_snippets, start_worker, stop_worker
from .problems import DocexecError, Problem
from .snippets import SNIPPETS_DIR, decode_source, discover, options, sections

#: Output longer than this (characters) is cut on the page, with a note saying how much was cut.
MAX_OUTPUT_CHARS = 20_000


class Session:
    """Runs the snippets of one repository and answers questions about the results.

    Args:
        root: the repository root (holds ``snippets/``).
        folder: the snippets folder, relative to ``root``.
        jobs: snippets run at once (default: CPU cores).
        timeout: seconds one snippet may run.
        cache: reuse results from ``.cache/docexec`` when nothing they depend on changed
            (``docexec.cache``); False runs everything.
        execute: False switches execution off altogether: no snippet runs, pages show no output
            (for measuring the cost of execution; see ``tools/bench.py``).
    """

    def __init__(self, root: Path, folder: str = SNIPPETS_DIR, jobs: int | None = None,
                 timeout: float = DEFAULT_TIMEOUT, cache: bool = True, execute: bool = True):
        self.root = Path(root).resolve()
        self.folder = folder
        self.jobs = jobs
        self.timeout = timeout
        self.cache = RunCache(self.root) if cache else None
        self.execute = execute
        self.results: dict[str, RunResult] = {}
        self.executed: list[str] = []  # the paths actually run (not cached) by the last run()
        self._ran = False
        self._ever_ran = False  # whether run() was ever called in this process
        self._worker = None  # a worker started early by prestart()
        self._looked = False  # prestart() found every snippet cached since the last run()
        self._sources: dict[str, bytes] = {}  # path -> bytes, read once per run (see source())
        self.deferred: dict[int, dict] = {}  # what the Markdown extension left to fill in (see markdown_ext.fill)
        # A run under way in the background (start() .. wait()): its thread, its worker, what it raised.
        self._thread: threading.Thread | None = None
        self._proc = None
        self._failure: BaseException | None = None
        self._arrived = threading.Condition()  # notified as each result comes in, and when the run ends

    def reset(self) -> None:
        """Forget every result, so the next question runs the snippets again (each rebuild).
        A run still under way (a build that stopped early) is stopped first (``cancel``)."""
        self.cancel()
        self.results = {}
        self._ran = False
        self._sources = {}
        self.deferred = {}

    def run(self, paths: list[str] | None = None,
            while_waiting: Callable[[], None] | None = None) -> dict[str, RunResult]:
        """Execute ``paths`` (default: every snippet under the folder) and keep their results:
        ``start`` then ``wait``.

        A run of every snippet (``paths`` None) also removes the cache entries it did not use
        (``RunCache.prune``), so that the cache does not grow with every edit.

        Args:
            paths: snippet paths relative to the root.
            while_waiting: if some snippet has to run (is not cached), this is called in a thread
                of its own while the snippets run, and waited for before ``run`` returns: work
                the caller would do later anyway can use the time spent waiting. It must not
                raise (anything it raises is lost) and must not use this session.

        Returns:
            ``self.results``: snippet path -> ``RunResult``, for this run's paths and earlier ones.

        Raises:
            ExecutionError: the worker could not be started or died (``docexec.execute.run_snippets``).
        """
        self.start(paths, while_waiting)
        return self.wait()

    def start(self, paths: list[str] | None = None, while_waiting: Callable[[], None] | None = None) -> None:
        """Begin a run of ``paths`` (default: every snippet) and return while it goes on.

        Cached results are looked up here and are in ``results`` when this returns; the snippets
        that must run are run by a thread of this session's, each result kept (claims checked,
        cache entry written) as it comes in. ``wait`` waits for some or all of them; ``cancel``
        stops the run. A caller can so render pages while the snippets run (the MkDocs hook
        does, with ``docexec.markdown_ext``'s ``defer`` option). Arguments as for ``run``.

        Raises:
            ExecutionError: the worker could not be started.
        """
        self.cancel()
        self._ran = self._ever_ran = True
        self.executed = []
        self._sources = {}
        self._looked = False
        if not self.execute:
            return
        every = paths is None  # a full run: its keys are all the cache needs to keep
        paths = discover(self.root, self.folder) if paths is None else list(paths)
        per_snippet, found, keys = {}, {}, {}
        for path in paths:
            try:
                per_snippet[path] = options(self.source(path))
            except ValueError as exc:
                found[path] = RunResult(path=path, ok=False, error_type="Options", error_message=str(exc))
                continue
            if self.cache is not None:
                keys[path] = self.cache.key(path, per_snippet[path], self._bytes(path))
                hit = self.cache.get(path, keys[path])
                if hit is not None:
                    found[path] = hit
        self.executed = [p for p in paths if p not in found]
        before = self.results  # for the order of results when the run ends (see _finish)
        again = set(paths)  # results of an earlier run of these paths are not this run's: out until in
        self.results = {**{p: r for p, r in before.items() if p not in again}, **found}
        worker, self._worker = self._worker, None
        if not self.executed:
            if worker is not None:  # started by prestart, for nothing: every snippet was cached
                run_snippets(self.root, [], worker=worker)
            self._finish(before, paths, found, every, keys)
            return
        self._proc = worker if worker is not None else start_worker(self.root)
        needs = {p: self._needs(p) for p in self.executed}

        def keep(result: RunResult) -> None:  # as each result comes in, while the others still run
            if self.cache is not None:
                self._check_claims(result)  # stored with the result: a warm build checks nothing again
                self.cache.put(result, keys[result.path])
            with self._arrived:
                found[result.path] = result
                # a new dict, not an update: other threads may be iterating over the current one
                self.results = {**self.results, result.path: result}
                self._arrived.notify_all()

        def background() -> None:
            helper = None
            if while_waiting is not None:
                helper = threading.Thread(target=while_waiting, name="docexec-while-waiting", daemon=True)
                helper.start()
            try:
                run_snippets(self.root, self.executed, jobs=self.jobs, timeout=self.timeout, options=per_snippet,
                             needs=needs, worker=self._proc, on_result=keep)
                self._finish(before, paths, found, every, keys)
            except BaseException as exc:  # handed to whoever waits  # noqa: BLE001
                self._failure = exc
            finally:
                if helper is not None:
                    helper.join()
                with self._arrived:
                    self._proc = None
                    self._arrived.notify_all()

        self._failure = None
        self._thread = threading.Thread(target=background, name="docexec-run", daemon=True)
        self._thread.start()

    def _finish(self, before: dict[str, RunResult], paths: list[str], found: dict[str, RunResult],
                every: bool, keys: dict[str, str]) -> None:
        """End a run whose every result is in: results in the order of ``paths``; unused entries pruned."""
        if every and self.cache is not None:
            self.cache.prune(set(keys.values()), self.folder)
        ordered = dict(before)
        ordered.update({p: found[p] for p in paths})
        with self._arrived:
            self.results = ordered

    def wait(self, paths: list[str] | None = None) -> dict[str, RunResult]:
        """Wait until the results of ``paths`` (default: the whole run started last) are in.

        Without ``paths`` the run is over when this returns (its thread ended, the cache pruned).
        Interrupted (Ctrl-C), it stops the run before re-raising.

        Returns:
            ``self.results``.

        Raises:
            ExecutionError: the run failed (the worker died); raised by every later wait too, until
                the next ``start``.
        """
        thread = self._thread
        if thread is None:
            return self.results
        try:
            if paths is None:
                thread.join()
            else:
                with self._arrived:
                    self._arrived.wait_for(lambda: self._proc is None or all(p in self.results for p in paths))
        except BaseException:
            self.cancel()
            raise
        if self._failure is not None:
            raise self._failure
        return self.results

    def cancel(self) -> None:
        """Stop a run under way, if any: its worker and snippets are ended (SIGTERM, then SIGKILL
        after 5 s; see ``docexec.execute``), its thread waited for; what it raised is dropped."""
        thread = self._thread
        if thread is None:
            return
        proc = self._proc
        if proc is not None and proc.poll() is None:
            stop_worker(proc)
        thread.join()
        self._thread = None
        self._failure = None

    def tally(self) -> dict[str, int]:
        """How the results of the last ``run`` were had: ``{"run": n, "cached": n, "not_run": n}``,
        the last for snippets that could not be run at all (bad ``# docexec:`` options)."""
        ran = len(self.executed)
        cached = sum(1 for result in self.results.values() if result.cached)
        return {"run": ran, "cached": cached, "not_run": len(self.results) - ran - cached}

    def prestart(self, first_run_only: bool = False) -> None:
        """Start the worker now if some snippet will have to run (its torch import then overlaps
        with whatever the caller does before ``run``, which uses that worker).

        Args:
            first_run_only: do nothing once ``run`` has been called in this process. For callers
                that may be called again after the run (a Markdown extension is set up again for
                every page), whose worker no ``run`` would ever use.
        """
        if not self.execute or self._worker is not None or (first_run_only and self._ever_ran):
            return
        if self._looked:  # looked already since the last run, and nothing had to run
            return
        self._sources = {}  # a new build is starting (mkdocs serve): read the snippets as they are now
        for path in discover(self.root, self.folder):
            try:
                key = self.cache.key(path, options(self.source(path)), self._bytes(path)) if self.cache else None
            except (OSError, ValueError):
                key = None
            # An entry that is there is not read here: if it turns out stale (a helper changed), the
            # run starts the worker itself, only later.
            if key is None or not self.cache.has(key):
                self._worker = start_worker(self.root)
                return
        self._looked = True

    #: Modules that some PyTorch features import lazily on first use and that take a second or
    #: more to import, with the words that mark a snippet using such a feature. Imported once, in
    #: a sub-worker that runs the snippets with those words, rather than once in each of their
    #: children. Measured on torch 2.13: optimizers and checkpointing import torch._dynamo
    #: (about 2.2 s); gradcheck and torch.autograd.functional import symbolic_shapes, which
    #: imports SymPy (about 0.8 s). A snippet the words miss still runs correctly, only slower.
    LAZY_HEAVY = {
        "torch._dynamo": re.compile(r"\boptim\b|checkpoint|\bcompile\b"),
        "torch.fx.experimental.symbolic_shapes": re.compile(
            r"gradcheck|gradgradcheck|\bfunctional\b|jacobian|hessian|\bvjp\b|\bjvp\b|\bvmap\b|torch\.func\b"),
    }

    def _needs(self, path: str) -> list[str]:
        source = self.source(path)
        names = [name for name, pattern in self.LAZY_HEAVY.items() if pattern.search(source)]
        # torch._dynamo imports symbolic_shapes itself: one sub-worker serves both
        return ["torch._dynamo"] if "torch._dynamo" in names else names

    def lateness(self, paths: list[str]) -> int:
        """How late the last result of ``paths`` is expected from the run under way, as a rank for
        ordering work that waits for them: 0 if every one is in or runs right away, else 1 + the
        rank of the slowest heavy module a sub-worker must import first (``LAZY_HEAVY`` lists the
        slowest first: torch._dynamo gives 2, symbolic_shapes 1)."""
        slowest_last = list(self.LAZY_HEAVY)[::-1]
        results, executed = self.results, set(self.executed)
        return max((1 + slowest_last.index(module) for path in paths if path in executed and path not in results
                    for module in self._needs(path)), default=0)

    def ensure_run(self, paths: list[str] | None = None) -> None:
        """Run every snippet once if this session has not run yet; of a run under way, wait for
        the results of ``paths`` (default: all)."""
        if not self._ran:
            self.run()
        else:
            self.wait(paths)

    def source(self, path: str) -> str:
        """The text of ``path`` (relative to the root) exactly as stored (see ``snippets.read_source``),
        read once per ``run``: what the results of that run are keyed, checked and shown against."""
        return decode_source(self._bytes(path))

    def _bytes(self, path: str) -> bytes:
        if path not in self._sources:
            with open(os.path.join(self.root, path), "rb") as handle:
                self._sources[path] = handle.read()
        return self._sources[path]

    def problems(self) -> list[Problem]:
        """Every failure of the runs so far: snippets that raised, hung or crashed, and claims that do not hold."""
        found: list[Problem] = []
        for path, result in self.results.items():
            if not result.ok:
                found.append(run_problem(result))
            found.extend(self._check_claims(result))
        if all(r.ok for r in self.results.values()):
            found.extend(figures.check(self.root, self.graphs(), set(self.results), self.folder))
        return found

    def _check_claims(self, result: RunResult) -> list[Problem]:
        """The claims of ``result``'s snippet that its prints do not bear out (checked once per result)."""
        if result.claim_problems is None:
            result.claim_problems = [] if result.error_type == "SyntaxError" else claims.check(  # already reported
                result.path, self.source(result.path), result.prints, complete=result.ok)
        return result.claim_problems

    def graphs(self) -> dict[str, str]:
        """Snippet path -> DOT text, for every snippet run so far that left a graph to draw."""
        return {path: r.graph_dot for path, r in self.results.items() if r.ok and r.graph_dot}

    def raise_for_problems(self) -> None:
        """Raise ``DocexecError`` listing every problem, if there is any."""
        problems = self.problems()
        if problems:
            raise DocexecError(problems)

    def versions(self) -> dict[str, str]:
        """``{"torch": ..., "python": ...}`` of the interpreter that ran the snippets ({} before any run)."""
        for result in self.results.values():
            if result.versions:
                return dict(result.versions)
        return {}

    def output(self, target: str) -> str:
        """The output a page shows under ``--8<-- "target"`` (``target`` relative to the folder).

        ``target`` is ``<chapter>/<example>.py`` for the whole run's output, or
        ``<chapter>/<example>.py:<section>`` for what the lines of that section wrote. Addresses
        are shown as ``0x…``; output beyond ``MAX_OUTPUT_CHARS`` is cut with a note. Runs the
        snippets first if needed.

        Raises:
            KeyError: the target names no snippet or no section of it.
        """
        from .snippets import split_target

        name, section = split_target(target)
        path = f"{self.folder}/{name}"
        if not self._ran:
            self.run()
        elif self.execute:
            self.wait([path])  # a run under way: this snippet's result only
        if not self.execute:
            return ""
        if path not in self.results:
            if not (self.root / path).is_file():
                raise KeyError(f"no snippet {path}")
            self.wait()  # the run under way ends first
            self.run([path])
        result = self.results[path]
        if section is None:
            text = result.output
            if result.dropped:
                text += f"\n[… {result.dropped:,} more characters were written and not recorded]"
        else:
            spans = sections(self.source(path))
            if section not in spans:
                raise KeyError(f"{path} has no section {section!r}")
            first, last = spans[section]
            text = "".join(chunk for line, chunk, _ in result.chunks if first <= line <= last)
        return truncate(claims.normalize(text).rstrip("\n"))


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """Cut ``text`` to about ``limit`` characters at a line end, saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > 0 else limit
    rest = text[cut:].lstrip("\n")
    return text[:cut] + f"\n[… output cut here: {len(rest):,} more characters, {rest.count(chr(10)) + 1:,} more lines]"


def run_problem(result: RunResult) -> Problem:
    """The problem for a run that did not finish: what happened and where."""
    if result.error_type in ("Timeout", "Crash", "SystemExit", "Options", "MemoryError"):
        message = result.error_message
    else:
        message = f"raised {result.error_type}: {result.error_message}".rstrip(": ")
    return Problem(result.path, result.error_line, message, detail=result.traceback)


_SESSIONS: dict[Path, Session] = {}


def sessions() -> list[Session]:
    """Every session ``get_session`` made in this process."""
    return list(_SESSIONS.values())


@atexit.register
def _cancel_runs() -> None:  # a process ending mid-run (Ctrl-C while pages render) leaves no worker behind
    for session in sessions():
        session.cancel()


def get_session(root: Path, folder: str = SNIPPETS_DIR) -> Session:
    """The shared session for a repository root (one per root and folder per process).

    The environment variable ``DOCEXEC_EXECUTE=0`` switches execution off (``Session(execute=False)``);
    ``DOCEXEC_CACHE=0`` switches the run cache off.
    """
    key = Path(root).resolve() / folder
    if key not in _SESSIONS:
        _SESSIONS[key] = Session(root, folder, cache=os.environ.get("DOCEXEC_CACHE", "1") != "0",
                                 execute=os.environ.get("DOCEXEC_EXECUTE", "1") != "0")
    return _SESSIONS[key]
