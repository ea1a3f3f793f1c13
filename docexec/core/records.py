"""What one example's run produced, as typed records, and the one codec between them and JSON.

A run (``RunResult``) is made of small records: each piece of text it wrote (``Chunk``), each
``print`` call's text with its line (``Printed``), the graph it left (``Graph``), how it failed
(``Failure``) and what it read (``Reads``). The worker's reports (``docexec.run.protocol``) carry
chunks, prints and the graph as events; the run cache and the notebooks' keys store a result as
``encode`` gives it, with chunks and prints in that same event form, and ``decode`` reads it back:
one spelling of each record on the wire and on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from docexec.core.problems import Problem

STDOUT, STDERR = "stdout", "stderr"
#: Characters of each argument of a ``print`` call kept apart (``Printed.parts``, which the prose quotes).
MAX_PART = 2_000


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of text the run wrote to ``stream`` (``STDOUT`` or ``STDERR``) while the snippet's
    module-level line ``line`` ran (0 if none): ``print``, ``sys.stdout.write``, warnings, logging,
    imported modules."""

    line: int
    text: str
    stream: str = STDOUT


@dataclass(frozen=True, slots=True)
class Printed:
    """The text one ``print`` call located in the snippet file wrote; ``line`` is a line inside that
    call, ``parts`` what it wrote of each of its arguments (``str`` of each). Claims are checked
    against the text; the prose quotes parts (``docexec.pages.quoted``). ``raised``: the name of
    the exception the call raised before it finished (``str()`` of an argument, a closed stream, an
    encoding error), else empty; what it wrote before that is output no claim bears."""

    line: int
    text: str
    parts: tuple[str, ...] | None = None  # None: one argument and the default end (the text's)
    raised: str = ""

    def __post_init__(self):
        if self.parts is None:
            object.__setattr__(self, "parts", (self.text.removesuffix("\n"),))


@dataclass(frozen=True)
class Graph:
    """The autograd graph a run's tensors held when it finished: DOT text
    (``docexec.graphs.graph.to_dot``), that graph in words for a text alternative, and what the
    figure shows as HTML (``docexec.graphs.teach.caption``)."""

    dot: str
    alt: str = ""
    caption: str = ""


@dataclass(frozen=True)
class Failure:
    """Why a run did not finish: ``error`` is the exception class name, or ``Timeout``, ``Crash``,
    ``SystemExit``, ``MemoryError``, ``Encoding`` (the file is not UTF-8), ``Options`` (bad
    ``# docexec:`` options); ``message`` one line; ``line`` the snippet line (0 when unknown)."""

    error: str
    message: str = ""
    line: int = 0
    traceback: str = ""


@dataclass(frozen=True)
class Reads:
    """What a run read besides its snippet (``docexec.run.cache`` checks each before trusting it).

    Attributes:
        deps: repository files (relative paths) it imported or opened, and those it tried to import
            and whose import raised.
        absent: repository paths that do not exist where a module it tried to import would have
            been found (an ``ImportError`` it caught): creating one would change the run.
        listed: repository folders it listed (``os.listdir``, ``glob``, ...).
        installed: files of the Python installation it opened: absolute path -> ``[size, mtime_ns]``.
        env: environment variables it read: name -> value, None where it was unset.
    """

    deps: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()
    installed: dict[str, list[int]] = field(default_factory=dict)
    env: dict[str, str | None] = field(default_factory=dict)


@dataclass
class RunResult:
    """What one snippet's run produced.

    Attributes:
        path: the snippet's path relative to the repository root, with ``/`` separators.
        failure: why it did not run to its end; None when it did (``ok``).
        chunks: every piece of text it wrote, in order (``Chunk``).
        prints: what each ``print`` call in the snippet file wrote, in order (``Printed``).
        raw: output written below Python (C code writing to file descriptors 1 and 2).
        versions: ``{"torch": ..., "python": ...}`` of the interpreter that ran it.
        seconds: wall-clock time from the fork of its process to its end, as the worker saw it.
        own_seconds: wall-clock time of the snippet's own code (the ``exec`` of its module).
        graph: the graph it left to draw; None if none.
        dropped: characters of output written beyond what is recorded (``worker.MAX_RECORDED``).
        reads: what it read (``Reads``).
        addresses: the numbers in its output that were addresses or ids in its process (they
            change from run to run): shown masked (``claims.mask``).
        cached: True when this result came from the run cache rather than a run in this build.
        claim_problems: the claims that do not hold (``claims.check``), once checked; None until
            then. Kept in the run cache, since they follow from the snippet's bytes and the result.
        unattributed: the snippet lines that wrote to stdout other than by a ``print`` call of the
            snippet file (``exec``'d code, a print in another file, ``sys.stdout.write``,
            ``os.write``, a child process): a comment there cannot be checked as a claim.
    """

    path: str
    failure: Failure | None = None
    chunks: list[Chunk] = field(default_factory=list)
    prints: list[Printed] = field(default_factory=list)
    raw: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    own_seconds: float = 0.0
    graph: Graph | None = None
    dropped: int = 0
    reads: Reads = field(default_factory=Reads)
    addresses: list[str] = field(default_factory=list)
    cached: bool = False
    claim_problems: list[Problem] | None = None
    unattributed: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the snippet ran to its end without an exception or a non-zero exit."""
        return self.failure is None

    @property
    def output(self) -> str:
        """All text the run wrote, in order (Python-level output, then C-level output)."""
        return "".join(chunk.text for chunk in self.chunks) + self.raw


def event_of(record: Chunk | Printed) -> dict:
    """A chunk or a print as the worker writes it (``docexec.run.protocol.Event``)."""
    if isinstance(record, Printed):
        event = {"p": record.text, "l": record.line}
        if record.parts != (record.text[:-1],) or not record.text.endswith("\n"):
            event["a"] = list(record.parts)
        if record.raised:
            event["r"] = record.raised
        return event
    event = {"o": record.text, "l": record.line}
    if record.stream != STDOUT:
        event["s"] = record.stream
    return event


def record_of(event: dict) -> Chunk | Printed | Graph:
    """The record an event of the worker stands for (the inverse of ``event_of``, and graphs); of an
    event that holds a chunk and the print that wrote it (``protocol.Event``), the chunk."""
    if "graph" in event:
        return Graph(**event["graph"])
    if "p" in event and "o" not in event:
        parts = event.get("a")
        return Printed(int(event.get("l", 0)), event["p"], None if parts is None else tuple(parts), event.get("r", ""))
    return Chunk(int(event.get("l", 0)), event["o"], event.get("s", STDOUT))


def _print_of(event: dict) -> Printed | None:
    """The print an event that also holds its chunk stands for, else None."""
    if "p" not in event or "o" not in event:
        return None
    parts = event.get("a")
    return Printed(int(event.get("pl", event.get("l", 0))), event["p"], None if parts is None else tuple(parts))


def from_report(path: str, events: list[dict], end: dict | None, **fields) -> RunResult:
    """A result from a worker's report on ``path``: its events and its end (``protocol.End``; None
    when the process died before writing one), and ``fields`` of ``RunResult`` as they are."""
    end = end or {}
    result = RunResult(path, **fields)
    for event in events:
        record = record_of(event)
        if isinstance(record, Graph):
            result.graph = record
        else:
            (result.prints if isinstance(record, Printed) else result.chunks).append(record)
            printed = _print_of(event)
            if printed is not None:
                result.prints.append(printed)
    if end.get("status") != "ok":
        result.failure = Failure(end.get("type", ""), end.get("message", ""), int(end.get("line", 0) or 0),
                                 end.get("traceback", ""))
    result.own_seconds = float(end.get("own_seconds", 0.0) or 0.0)
    result.dropped = int(end.get("dropped", 0) or 0)
    result.reads = Reads(tuple(end.get("deps", ())), tuple(end.get("absent", ())), tuple(end.get("listed", ())),
                         dict(end.get("installed", {})), dict(end.get("env", {})))
    result.addresses = list(end.get("addresses", []))
    result.unattributed = [int(line) for line in end.get("unattributed", [])]
    return result


def encode(result: RunResult, leave_out: frozenset[str] = frozenset({"cached"})) -> dict:
    """``result`` as JSON-ready data (``decode`` reads it back), without the fields ``leave_out``.
    The same as ``dataclasses.asdict`` but for chunks and prints, in their event form, and without
    its deep copy of every chunk."""
    data = {}
    for name in RunResult.__dataclass_fields__:
        if name in leave_out:
            continue
        value = getattr(result, name)
        if name in ("chunks", "prints"):
            value = [event_of(record) for record in value]
        elif name == "claim_problems":
            value = None if value is None else [_fields(problem) for problem in value]
        elif name in ("failure", "graph", "reads"):
            value = None if value is None else _fields(value)
        data[name] = value
    return data


def _fields(record) -> dict:
    """A record whose fields hold no other record as a dict of its fields, not copied (what
    ``dataclasses.asdict`` gives, without its deep copy: a run's ``Reads`` lists hundreds of
    installed files)."""
    return {name: getattr(record, name) for name in record.__dataclass_fields__}


def decode(data: dict) -> RunResult:
    """The result ``encode`` gave ``data`` for.

    Raises:
        KeyError, TypeError, ValueError: ``data`` does not have that shape.
    """
    fields = dict(data)
    fields["chunks"] = [record_of(event) for event in data["chunks"]]
    fields["prints"] = [record_of(event) for event in data["prints"]]
    if not all(isinstance(c, Chunk) for c in fields["chunks"]) or not all(
            isinstance(p, Printed) for p in fields["prints"]):
        raise ValueError("chunks and prints hold other records")
    for name, record in (("failure", Failure), ("graph", Graph)):
        fields[name] = None if data.get(name) is None else record(**data[name])
    reads = data.get("reads") or {}
    fields["reads"] = Reads(*(tuple(reads.get(k, ())) for k in ("deps", "absent", "listed")),
                            dict(reads.get("installed", {})), dict(reads.get("env", {})))
    problems = data.get("claim_problems")
    fields["claim_problems"] = None if problems is None else [Problem(**p) for p in problems]
    return RunResult(**fields)
