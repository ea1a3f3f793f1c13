"""What another PyTorch changes in the course: two runs of every example compared, and the record.

``make drift TORCH=<version>`` runs every example on the pinned PyTorch (the course's own run, run
cache included) and on another one (a side environment, ``docexec.versions.sideenv``, without the run
cache), by the same rules, and ``compare`` says per example what differs:

* each claim that would no longer hold (``docexec.source.claims``: the same matching, ``...`` included),
  with what each version printed there;
* a run that would fail, and each warning the other version newly writes or no longer writes;
* the committed DOT file of a graph that would differ (``docexec.graphs.figures``), as a unified diff;
* each output block (an include target: the whole file or one of its sections) that would read
  differently, as the two texts.

Outputs are compared as the pages show them (``Results.output``: addresses as ``0x…``), with
every path up to a ``site-packages`` folder written ``…/site-packages/``, so that where each
environment lives never counts as a change.

The comparison is kept in a record, ``drift.json`` at the repository root, that authors commit:
the site shows it as a page and as notes under the outputs (``docexec.pages.drift_page``). It holds the
SHA-256 of every file under the snippets folder: once one of them changes, or the build runs
another PyTorch than the record's baseline, the record is stale and ``current`` refuses it.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from docexec.core.files import write_atomically
from docexec.core.problems import Problem
from docexec.source import claims
from docexec.source.snippets import files_under
from docexec.versions.sideenv import base_version

RECORD = "drift.json"  # relative to the repository root
FORMAT = 1


class RecordNotShownError(Exception):
    """A drift record exists but must not be shown (stale, or unreadable); ``problem`` says why."""

    def __init__(self, problem: Problem):
        self.problem = problem
        super().__init__(str(problem))


@dataclass(frozen=True)
class ClaimChange:
    """A claim that would no longer hold: its print's line, what the baseline printed there and
    what the other version prints (None: that print no longer runs)."""

    line: int
    before: list[str]
    after: list[str] | None


@dataclass(frozen=True)
class Warned:
    """A warning one version writes and the other does not: the snippet line that was running and
    its ``Category: message`` text."""

    line: int
    text: str


@dataclass(frozen=True)
class OutputChange:
    """An output block that reads differently: its text on the baseline and on the other version."""

    before: str
    after: str


@dataclass
class ExampleDrift:
    """Everything that differs for one example (``path``: ``snippets/<chapter>/<example>.py``).

    Attributes:
        claims: its claims that would change.
        failure: how its run would fail ("" when it runs), at ``failure_line``.
        new_warnings / gone_warnings: warnings the other version writes / no longer writes.
        figure: the unified diff of its committed DOT file ("" when its graph is the same).
        outputs: include target (``<chapter>/<example>.py`` or ``...:<section>``) -> its change.
    """

    path: str
    claims: list[ClaimChange] = field(default_factory=list)
    failure: str = ""
    failure_line: int = 0
    new_warnings: list[Warned] = field(default_factory=list)
    gone_warnings: list[Warned] = field(default_factory=list)
    figure: str = ""
    outputs: dict[str, OutputChange] = field(default_factory=dict)

    def line_changes(self) -> list[LineChange]:
        """Its changes that a line of the example makes, in the order reports list them: claims,
        the failure, new warnings, warnings gone."""
        found = [LineChange(c.line, "claim", c.before, c.after) for c in self.claims]
        if self.failure:
            found.append(LineChange(self.failure_line, "failure", after=self.failure))
        found += [LineChange(w.line, "new warning", after=w.text) for w in self.new_warnings]
        found += [LineChange(w.line, "gone warning", before=w.text) for w in self.gone_warnings]
        return found


@dataclass(frozen=True)
class LineChange:
    """One change a line of an example makes on the other version, of ``kind`` claim (``before``
    and ``after``: the lines printed; ``after`` None when that print no longer runs), failure
    (``after``: the error), new warning (``after``: its text) or gone warning (``before``)."""

    line: int
    kind: str
    before: list[str] | str | None = None
    after: list[str] | str | None = None


@dataclass
class ProseChange:
    """A value a page's prose quotes (``{{ example: expression }}``) that the other version shows
    differently: ``quote`` as the build names it (``docexec.pages.quoted.shown_values``), the value
    on the pinned version and on the other (None: the quote names no value there)."""

    page: str
    quote: str
    before: str
    after: str | None


@dataclass
class Record:
    """A comparison of the course on two PyTorch versions.

    Attributes:
        torch: the other version (``2.14.1``); ``baseline``: the pinned one it was compared with.
        python: the Python version of the other version's run.
        examples_run: how many examples ran on both.
        digests: every file under the snippets folder -> the SHA-256 of its bytes when recorded.
        examples: path -> what differs, for the examples where anything does (sorted by path).
        prose: the values quoted in the pages' prose that would change (sorted by page).
    """

    torch: str
    baseline: str
    python: str
    examples_run: int
    digests: dict[str, str]
    examples: dict[str, ExampleDrift]
    prose: list[ProseChange] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """How much differs: examples, claims, new and gone warnings, figures, failures, quoted values."""
        found = list(self.examples.values())
        return {"examples": len(found), "claims": sum(len(e.claims) for e in found),
                "new_warnings": sum(len(e.new_warnings) for e in found),
                "gone_warnings": sum(len(e.gone_warnings) for e in found),
                "figures": sum(1 for e in found if e.figure), "failures": sum(1 for e in found if e.failure),
                "prose": len(self.prose)}


# -- comparing two runs ---------------------------------------------------------------------------


def show_lines(lines: list[str] | None) -> str:
    """Lines a print wrote, in one message (``claims.show_printed``); None: it no longer runs."""
    return "nothing (that print no longer runs)" if lines is None else claims.show_printed(lines)


def _from_difference(old: str, new: str, context: int = 30) -> str:
    """``new``, starting a few words before where it differs from ``old`` (with ``…``) when they
    share a beginning longer than ``context`` characters."""
    start = len(os.path.commonprefix([old, new]))
    if start <= 2 * context:
        return new
    cut = new.rfind(" ", 0, start - context) + 1 or start - context
    return "…" + new[cut:]


def first_difference(change: OutputChange) -> str:
    """The first place where two outputs differ, in words: ``'…h:493.)' becomes '…h:488.)'``."""
    old, new = change.before.split("\n"), change.after.split("\n")
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "insert":
            return f"it also prints {show_lines(new[j1:j2])}"
        if tag == "delete":
            return f"it no longer prints {show_lines(old[i1:i2])}"
        if tag == "replace":
            a, b = old[i1], new[j1]
            start = len(os.path.commonprefix([a, b]))
            end = len(os.path.commonprefix([a[start:][::-1], b[start:][::-1]]))
            left = max(0, start - 30)
            a, b = (("…" if left else "") + line[left:len(line) - max(0, end - 10)] + ("…" if end > 10 else "")
                    for line in (a, b))
            return f"{a!r} becomes {b!r}"
    return "its text differs"


def changed_lines(before: str, after: str) -> tuple[str, str]:
    """The lines of ``after`` that differ from ``before`` (replacing or added) and the lines of
    ``before`` that ``after`` drops without replacing them, each as text; ``…`` between hunks. A
    line that replaces one it shares a long beginning with starts at the words that differ."""
    old, new = before.split("\n"), after.split("\n")
    added, removed = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "replace":
            pairs = zip(old[i1:i2], new[j1:j2], strict=False) if i2 - i1 == j2 - j1 else ()
            shown = [_from_difference(a, b) for a, b in pairs] or new[j1:j2]
            added += (["…"] if added else []) + shown
        elif tag == "insert":
            added += (["…"] if added else []) + new[j1:j2]
        elif tag == "delete":
            removed += (["…"] if removed else []) + old[i1:i2]
    return "\n".join(added), "\n".join(removed)


# -- the record -----------------------------------------------------------------------------------


def digests(root: Path, folder: str) -> dict[str, str]:
    """Every file under ``root/folder`` (helpers and data too) -> the SHA-256 of its bytes, sorted
    (a symbolic link to nothing holds no bytes: the build reports it as the example it names)."""
    found = {}
    for path in sorted(files_under(root, folder, "")):
        if not os.path.isfile(os.path.join(root, path)):
            continue
        with open(os.path.join(root, path), "rb") as handle:
            found[path] = hashlib.sha256(handle.read()).hexdigest()
    return found


def dumps(record: Record) -> str:
    """The record as the JSON text of ``drift.json``: the same text for the same record."""
    data = {"format": FORMAT, **dataclasses.asdict(record)}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def loads(text: str) -> Record:
    """Read a record written by ``dumps``.

    Raises:
        ValueError: not JSON, not a record, or one of another format.
    """
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a drift record of format {FORMAT}")
    try:
        examples = {path: ExampleDrift(
            path=e["path"], claims=[ClaimChange(**c) for c in e["claims"]], failure=e["failure"],
            failure_line=e["failure_line"], new_warnings=[Warned(**w) for w in e["new_warnings"]],
            gone_warnings=[Warned(**w) for w in e["gone_warnings"]], figure=e["figure"],
            outputs={t: OutputChange(**o) for t, o in e["outputs"].items()}) for path, e in data["examples"].items()}
        return Record(torch=data["torch"], baseline=data["baseline"], python=data["python"],
                      examples_run=data["examples_run"], digests=dict(data["digests"]), examples=examples,
                      prose=[ProseChange(**change) for change in data.get("prose", [])])
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a drift record: {exc!r}") from None


def write(root: Path, record: Record) -> bool:
    """Write ``record`` to ``root/drift.json`` (atomically, and only if its text changes).

    Returns:
        Whether the file changed.
    """
    target = Path(root) / RECORD
    text = dumps(record)
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    write_atomically(target, text)
    return True


@lru_cache(maxsize=1)
def installed_torch() -> str:
    """The version of the torch this process would run (package metadata; torch is not imported),
    without its local part; "none" when torch is not installed."""
    try:
        return base_version(metadata.version("torch"))
    except metadata.PackageNotFoundError:
        return "none"


def current(root: Path, folder: str) -> Record | None:
    """The committed record if it may be shown: None when there is none.

    Raises:
        RecordNotShownError: it cannot be read, it was made against another PyTorch than the one
            installed, or a file under ``folder`` was added, removed or changed since.
    """
    target = Path(root) / RECORD
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RecordNotShownError(Problem(RECORD, 0, f"not shown: it cannot be read: {exc}")) from None
    try:
        record = loads(text)
    except ValueError as exc:
        raise RecordNotShownError(Problem(RECORD, 0, f"not shown: {exc}; run `make drift TORCH=<version>` to write it "
                                                "again")) from None
    refresh = f"run `make drift TORCH={record.torch}` to refresh it, or delete it"
    if record.baseline != installed_torch():
        raise RecordNotShownError(Problem(RECORD, 0, f"not shown: it compares PyTorch {record.baseline} with "
                                                f"{record.torch}, and this build runs {installed_torch()}; {refresh}"))
    now = digests(root, folder)
    changed = sorted(p for p in set(now) | set(record.digests) if now.get(p) != record.digests.get(p))
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        raise RecordNotShownError(Problem(RECORD, 0, f"not shown: {changed[0]}{more} changed since it was recorded; "
                                                f"{refresh}"))
    return record
