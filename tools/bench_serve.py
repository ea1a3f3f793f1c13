"""Edits timed under ``mkdocs serve`` for ``make bench`` (tools/bench.py): from the file write to
the live reload that shows the edit."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from bench_sites import ENV, Side, Sites

SERVE_TIMEOUT = 600.0  # seconds a serve may take to start, or an edit to show


# ---------------------------------------------------------------------------------------------
# mkdocs serve


def free_port() -> int:
    """A TCP port free on the loopback address just now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, timeout: float = SERVE_TIMEOUT) -> str:
    """The body of ``url`` as text."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8", errors="replace")


class Served:
    """A site under `mkdocs serve --livereload` on a free loopback port, for timing edits."""

    def __init__(self, side: Side, sites: Sites) -> None:
        self.side, self.sites, self.address = side, sites, f"127.0.0.1:{free_port()}"
        self.log = side.folder.parent / f"serve-{side.folder.name}.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Served:
        command = [self.side.python, "-m", "mkdocs", "serve", "--livereload", "--dev-addr", self.address]
        with open(self.log, "w", encoding="utf-8") as out:
            self.proc = subprocess.Popen(command, cwd=self.side.folder, env=ENV, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.page()  # served once the first build is done
        return self

    def __exit__(self, *_exc: object) -> None:
        """Stop the server as Ctrl-C does (SIGINT to its process group), killing it after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def failed(self, why: str) -> SystemExit:
        """An exit naming the server and the end of its log."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return SystemExit(f"mkdocs serve of {self.side.name} ({self.side.folder}): {why}\n{text[-3000:]}")

    def page(self) -> str:
        """The edited page as served (MkDocs holds the answer while a rebuild is under way)."""
        deadline = time.monotonic() + SERVE_TIMEOUT
        while True:
            try:
                return fetch(f"http://{self.address}{self.sites.url}")
            except OSError as error:  # not listening yet (the first build is under way)
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise self.failed(f"no page ({error})") from error
                time.sleep(0.1)

    def time_edit(self, edit: Callable[[Path, Sites], str]) -> float:
        """Seconds from an edit's file write to the reload that shows it.

        The page's livereload script holds the epoch of the build it came from; after the write,
        ``/livereload/<epoch>/<id>`` answers as soon as a newer build is visible (or after a
        minute, with the same epoch). The page must then hold the edit's text, else the next
        reload is waited for. A second's pause first lets a stray rebuild start, and reading the
        page waits for it to end.
        """
        time.sleep(1.0)
        epoch = int(re.search(r"livereload\((\d+),", self.page())[1])
        started = time.perf_counter()
        marker = edit(self.side.folder, self.sites)
        while time.perf_counter() - started < SERVE_TIMEOUT:
            try:
                answer = int(fetch(f"http://{self.address}/livereload/{epoch}/0"))
            except OSError as error:  # the server ended
                raise self.failed(f"no reload after the edit {marker!r} ({error})") from error
            seconds = time.perf_counter() - started
            if answer > epoch and marker in self.page():
                return seconds
            epoch = max(epoch, answer)
        raise self.failed(f"the edit {marker!r} was not shown within {SERVE_TIMEOUT:.0f} s")
