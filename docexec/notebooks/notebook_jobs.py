"""A build's chapter notebooks, made in the background as their chapters' snippets come in.

MkDocs converts the Markdown pages first and the notebook pages last. ``NotebookJobs`` works on the
notebooks meanwhile, in a thread of the build's process. Each chapter's notebook is made as soon as
every snippet of that chapter is in, so that a chapter with a slow example does not hold up the
later ones; a chapter whose snippets had to run goes before those whose results were all in at the
start (from the run cache, in the order given), which are mostly kept as they are (under ``mkdocs
serve``, the notebook of the chapter an edit changed is then made first, not after all the others):
it is written (``docexec.notebooks.chapter.chapter_notebook``) and handed to the converting process
(``docexec.notebooks.notebook_html.Converter``), which makes its page's HTML while the build goes on. A
notebook made from exactly the same inputs as the one on disk (``notebook_key``, stored next to it
as ``<name>.key``) is kept without being made again, and an unchanged notebook's HTML comes from
the cache: a warm build converts nothing.
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import threading
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path

from docexec.core.files import seal, write_atomically
from docexec.graphs.figures import Drawings
from docexec.notebooks.chapter import chapter_notebook, dumps, notebook_key
from docexec.notebooks.notebook_html import NotebookError, NotebookHtml, NotebookPages
from docexec.run.runner import Runner
from docexec.source.includes import Page


@dataclass
class NotebookJob:
    """One chapter's notebook: its page record, the file it is written to, and two futures: the
    file written (``written``, done with None) and its page's HTML (``html``, a ``NotebookHtml``)."""

    page: Page
    target: Path
    written: Future = field(default_factory=Future)
    html: Future = field(default_factory=Future)


class NotebookJobs:
    """The notebooks of one build, made by a thread of their own (``start``).

    Args:
        runner: the build's runner, whose run has started (the chapters' results come from it).
        drawings: the build's drawings (the notebooks' figures are drawn with them).
        pages: the build's notebook pages (the HTML cache and the converting process).
        site_url: the published site's address (links to other pages are made absolute with it).
    """

    def __init__(self, runner: Runner, drawings: Drawings, pages: NotebookPages, site_url: str = ""):
        self.runner = runner
        self.drawings = drawings
        self.pages = pages
        self.site_url = site_url
        self.jobs: dict[str, NotebookJob] = {}
        self._thread: threading.Thread | None = None
        self._cancelled = threading.Event()
        self._writing = threading.Lock()  # held while a notebook is written (see ``cancel``)

    def start(self, notebooks: dict[str, tuple[Page, Path]]) -> None:
        """Begin to make ``notebooks`` (a name -> the chapter's page record and the notebook's file),
        each once its snippets are in, and return at once."""
        self.jobs = {name: NotebookJob(page, Path(target)) for name, (page, target) in notebooks.items()}
        # (whether it was ready at the start, order, job): the smallest first
        ready: queue.PriorityQueue[tuple[bool, int, NotebookJob]] = queue.PriorityQueue()
        order, at_start = itertools.count(), threading.Event()
        for job in self.jobs.values():
            futures = [self.runner.futures[path] for path in job.page.snippets if path in self.runner.futures]
            if len(futures) < len(job.page.snippets) or not futures:  # wait() says why (a path not run)
                ready.put((True, next(order), job))
                continue
            left, lock = [len(futures)], threading.Lock()

            def one_in(_done, job=job, left=left, lock=lock) -> None:
                with lock:
                    left[0] -= 1
                    if left[0] == 0:
                        ready.put((not at_start.is_set(), next(order), job))

            for future in futures:
                future.add_done_callback(one_in)  # called at once if the future is done (from the cache)
        at_start.set()
        self._thread = threading.Thread(target=self._work, args=(ready,), name="docexec-notebook-jobs", daemon=True)
        self._thread.start()

    def _work(self, ready: queue.PriorityQueue) -> None:
        for _ in range(len(self.jobs)):
            *_, job = ready.get()
            try:
                self._stop_if_cancelled()  # the runner may serve the next build by now: not waited on
                results = self.runner.wait(job.page.snippets)
                with self._writing:
                    self._stop_if_cancelled()
                    self._write(job, results)
                job.written.set_result(None)
                converted = self.pages.submit(job.target)
            except BaseException as error:  # noqa: BLE001 - handed to whoever waits for this notebook
                for future in (job.written, job.html):
                    if not future.done():
                        future.set_exception(error)
                continue
            converted.add_done_callback(lambda done, job=job: _settle(job.html, done))

    def _stop_if_cancelled(self) -> None:
        if self._cancelled.is_set():
            raise NotebookError("the build stopped before this notebook was written")

    def _write(self, job: NotebookJob, results) -> None:
        """Write the notebook of ``job`` unless the one on disk was made from the same inputs."""
        stamp = job.target.with_suffix(".key")  # the inputs' key, sealed with the notebook's bytes
        key = notebook_key(job.page, results, self.site_url)
        with contextlib.suppress(OSError):
            if stamp.read_bytes() == seal(key, job.target.read_bytes()):
                return  # made from the same inputs, and not changed since
        content = dumps(chapter_notebook(job.page, results, self.drawings, self.site_url))
        if not job.target.is_file() or job.target.read_text(encoding="utf-8") != content:
            write_atomically(job.target, content)
        write_atomically(stamp, seal(key, content.encode("utf-8")))

    def written(self, name: str) -> None:
        """Wait until the notebook ``name`` is written.

        Raises:
            KeyError: no such notebook in this build.
            ExecutionError, GraphvizError, UnknownTargetError, OSError: making it failed.
        """
        self.jobs[name].written.result()

    def html(self, name: str) -> NotebookHtml:
        """The page of the notebook ``name``, once converted (or found in the cache).

        Raises:
            as ``written``, and ``NotebookError``: it could not be converted.
        """
        return self.jobs[name].html.result()

    def cancel(self) -> None:
        """Write no more notebooks (the build failed); returns once none is being written, so that
        the next build (``mkdocs serve``) never writes one at the same time as this one's thread:
        the later write could otherwise leave a notebook from old results under the new key."""
        self._cancelled.set()
        with self._writing:
            pass

    def join(self) -> None:
        """Wait until the thread has handed every notebook on (or failed it)."""
        if self._thread is not None:
            self._thread.join()


def _settle(target: Future, done: Future) -> None:
    error = done.exception()
    target.set_exception(error) if error is not None else target.set_result(done.result())
