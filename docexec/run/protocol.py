"""What the build and the worker say to each other, as typed records used by both sides.

Three channels, each carrying JSON:

* **Request** (build -> worker, the worker's standard input, one JSON line per request; the worker
  serves one after another until its input ends): which snippets to run, with which limits, in
  which groups (``Request``, ``Group``).
* **Events** (snippet process -> worker, one JSON object a line in a file per snippet): what the
  snippet wrote and printed, the graph it left and how it ended (``Event``, ``End``).
* **Reports** (worker -> build, one JSON line per finished snippet on the worker's standard
  output, in the order the snippets finish): ``Report``; then ``DONE``, once per request. A
  sub-worker (see ``docexec.run.worker.pool``) also writes ``+<pid> <snippet>`` and ``-<pid>`` lines
  to the worker, which never reach the build.

Nothing here imports torch: the build imports this module too.
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import NotRequired, TypedDict

from docexec.core.files import IMPORT_DIR
from docexec.source.snippets import NO_FIGURE


@dataclass
class Group:
    """Snippets that run from one process state: ``preload`` lists modules imported once before
    their processes are forked (``torch._dynamo``, which some PyTorch features import lazily and
    slowly). The first group runs in the worker itself, every other one in a sub-worker."""

    preload: list[str]
    snippets: list[str]


@dataclass
class Limits:
    """What one snippet may use: ``timeout`` in seconds of wall-clock time, ``memory_mb`` in MiB of
    address space above what the worker already uses (None: no limit); what its figure records
    (``figure``: kinds of ``docexec.graphs.teach.KINDS``, or ``("none",)`` for no figure) and the
    tensors it starts from (``draw``: names of globals or attribute paths; empty: every tensor
    among the globals), given on line ``draw_line`` of the snippet."""

    timeout: float
    memory_mb: float | None
    figure: tuple[str, ...] = ()
    draw: tuple[str, ...] = ()
    draw_line: int = 0

    @property
    def drawn(self) -> bool:
        """Whether the snippet gets a figure (not ``figure=none``)."""
        return self.figure != (NO_FIGURE,)

    @property
    def recorded(self) -> tuple[str, ...]:
        """The kinds of fact to record while it runs (none when it gets no figure)."""
        return self.figure if self.drawn else ()


@dataclass
class Request:
    """One run of the worker.

    Attributes:
        root: the repository root (absolute); snippet paths are relative to it.
        jobs: how many snippets run at once, over the worker and its sub-workers together.
        timeout, memory_mb: the default limits of every snippet (see ``Limits``).
        options: per-snippet options by path: ``{"timeout": s, "memory_mb": MiB, "figure": kinds,
            "draw": names, "draw_line": line}``.
        groups: the snippets to run, in groups (``Group``).
        order: every snippet in the order the caller wants them run (groups that the worker
            merges, see ``Request.merged``, keep it).
    """

    root: str
    jobs: int = 1
    timeout: float = 30.0
    memory_mb: float | None = None
    options: dict[str, dict[str, float | str]] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    order: list[str] = field(default_factory=list)

    def merged(self, imported: Callable[[str], bool]) -> list[Group]:
        """The groups to run: those whose modules are all ``imported`` already (the worker imports
        the slow lazy imports before forking, see ``docexec.run.worker.preload.WARM_IMPORTS``) run with the
        first group, in ``order``: a sub-worker that imports nothing would only hold them back."""
        first, *others = self.groups
        ready = [group for group in others if all(imported(module) for module in group.preload)]
        if not ready:
            return self.groups
        rank = {path: number for number, path in enumerate(self.order)}
        snippets = sorted(first.snippets + [p for group in ready for p in group.snippets],
                          key=lambda path: rank.get(path, len(rank)))
        return [Group(first.preload, snippets)] + [group for group in others if group not in ready]

    def limits(self, path: str) -> Limits:
        """The limits of snippet ``path``: its own options over the defaults."""
        own = self.options.get(path, {})
        figure, draw = (tuple(str(own[key]).split("+")) if own.get(key) else () for key in ("figure", "draw"))
        return Limits(float(own.get("timeout", self.timeout)), own.get("memory_mb", self.memory_mb), figure, draw,
                      int(own.get("draw_line", 0)))

    def dumps(self) -> str:
        """The request as one JSON text."""
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> Request:
        """Read a request written by ``dumps``. Groups without snippets are dropped; a request
        without any keeps one empty group, so the worker always has a first group.

        Raises:
            ValueError: the text is not JSON; KeyError / TypeError: it is not a request.
        """
        data = json.loads(text)
        groups = [Group(list(g.get("preload", [])), list(g["snippets"])) for g in data.get("groups", [])
                  if g.get("snippets")]
        return cls(root=data["root"], jobs=max(1, int(data.get("jobs", 1))),
                   timeout=float(data.get("timeout", 30.0)), memory_mb=data.get("memory_mb"),
                   options=dict(data.get("options", {})), groups=groups or [Group([], [])],
                   order=list(data.get("order", [])))


#: The line the worker writes when it has reported every snippet of a request (it then reads the
#: next request, or ends when its input does).
DONE = '{"done": true}'
#: Characters of a snippet's output recorded, whether written by print or straight to its file
#: descriptors; what is written beyond is counted, not kept (the page cuts far earlier).
MAX_RECORDED = 16_000_000


class Event(TypedDict, total=False):
    """One line of a snippet's events file: ``o``, ``p`` (or both), or ``graph``.

    ``o``: text written to stdout (or stderr, with ``s`` = ``"stderr"``), ``l`` the snippet's
    module-level line that was running (0 if none), ``raw_end`` how far the raw output (written
    below Python, to file descriptors 1 and 2) had been read when this text was written;
    ``p``: the text one ``print`` call in the snippet file wrote, ``l`` the line of that call (or,
    in an event with ``o`` too, ``pl``: one event for the text a print wrote and for the print), ``a``
    what it wrote of each argument (left out when it had one argument and the default end: then
    that is ``p`` without its line break);
    ``graph``: ``{"dot": ..., "alt": ...}``, the autograd graph left when the snippet finished.
    """

    o: str
    p: str
    pl: int
    a: list[str]
    l: int  # noqa: E741 - the wire name
    s: str
    raw_end: int
    graph: dict[str, str]


class End(TypedDict):
    """How a snippet ended (the last line of its events file, under the key ``end``).

    ``status`` is ``"ok"`` or ``"error"``; an error has ``type`` (the exception class name, or
    ``Timeout``, ``Crash``, ``SystemExit``, ``MemoryError``), a one-line ``message``, the snippet
    ``line`` (0 if unknown) and a ``traceback`` (may be ""). Every end may carry ``own_seconds``
    (time of the snippet's own code), ``deps`` and ``absent`` (the repository files the run imported
    or opened, and the paths where an import looked in vain), ``listed`` (repository folders it
    listed), ``installed`` (files of the installation it opened: path -> [size, mtime_ns]; all of
    these see ``docexec.run.cache``), ``addresses`` (numbers in its output that were addresses or ids
    in its process, see ``docexec.source.claims.mask``), ``dropped`` (characters of output beyond what is
    recorded), ``late`` (True: it ended after faulthandler wrote where it was, shortly before its
    timeout; the worker reports it as a timeout), ``env`` (environment variables it read: name ->
    value, None where unset) and ``unattributed`` (lines that wrote output no print call of the
    snippet made).
    """

    status: str
    type: NotRequired[str]
    message: NotRequired[str]
    line: NotRequired[int]
    traceback: NotRequired[str]
    own_seconds: NotRequired[float]
    deps: NotRequired[list[str]]
    absent: NotRequired[list[str]]
    listed: NotRequired[list[str]]
    addresses: NotRequired[list[str]]
    late: NotRequired[bool]
    installed: NotRequired[dict[str, list[int]]]
    dropped: NotRequired[int]
    env: NotRequired[dict[str, str | None]]
    unattributed: NotRequired[list[int]]


class Report(TypedDict):
    """One finished snippet, as the worker reports it: its events (without the end), the raw output
    not read into events, the versions of the interpreter, the seconds from fork to end, and the
    end (None if the process died before writing one)."""

    path: str
    events: list[Event]
    raw: str
    versions: dict[str, str]
    seconds: float
    end: End | None


def worker_environment(base: dict[str, str]) -> dict[str, str]:
    """The environment a worker (and every snippet it runs) gets when started from one with
    ``base``: the same, with hash randomization off, glibc's malloc asked for transparent huge pages
    (forking a process that holds torch copies its page tables: with 4 KiB pages about 10 ms per
    snippet, about half that with huge pages; a glibc without the tunable ignores it,
    https://www.gnu.org/software/libc/manual/html_node/Memory-Allocation-Tunables.html) and
    docexec importable. The run cache compares what a snippet read of it with this."""
    env = dict(base)
    env["PYTHONHASHSEED"] = "0"
    if "glibc.malloc.hugetlb" not in env.get("GLIBC_TUNABLES", ""):
        env["GLIBC_TUNABLES"] = ":".join(filter(None, [env.get("GLIBC_TUNABLES"), "glibc.malloc.hugetlb=1"]))
    env["PYTHONPATH"] = os.pathsep.join([str(IMPORT_DIR)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


def error_end(kind: str, message: str, line: int = 0, traceback: str = "") -> End:
    """The end of a snippet that failed in a way of ``kind`` (an exception name, ``Timeout``, ...)."""
    return {"status": "error", "type": kind, "message": message, "line": line, "traceback": traceback}


@dataclass
class EventsRead:
    """A finished snippet's events file and the raw output after what the events hold.

    Attributes:
        events: its events, without the end; a half-written last line (a killed process) is skipped.
        end: how it ended, or None when the process wrote no end (it crashed, or was stopped).
        raw: the raw output after what the events hold, as much as ``MAX_RECORDED`` leaves room for.
        cut: the characters of that raw output past the room, not kept (``End.dropped`` for an end
            the worker writes for a process that wrote none).
    """

    events: list
    end: End | None
    raw: str
    cut: int


def read_events(events_path: str, raw_path: str) -> EventsRead:
    """Read a finished snippet's events file and the raw output after what the events hold."""
    events: list[Event] = []
    end = None
    with open(events_path, encoding="utf-8") as handle:
        for line in handle:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "end" in event:
                end = event["end"]
            else:
                events.append(event)
    drained = max((event.get("raw_end", 0) for event in events), default=0)
    kept = sum(len(event.get("o", "")) for event in events)
    with open(raw_path, "rb") as handle:  # what the snippet wrote after its last look (a crash's last words)
        handle.seek(drained)
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        raw = decoder.decode(handle.read(max(0, MAX_RECORDED - kept)))  # bytes: no more characters
        raw, cut = raw[:max(0, MAX_RECORDED - kept)], 0
        while chunk := handle.read(1 << 20):  # past the room: counted, a MiB at a time, not kept
            cut += len(decoder.decode(chunk))
        cut += len(decoder.decode(b"", final=True))
    return EventsRead(events, end, raw, cut)
