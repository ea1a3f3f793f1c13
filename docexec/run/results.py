"""A read-only view of one build's snippet runs: outputs by include target, problems, graphs.

``Results`` never runs anything: ``docexec.run.runner.Runner`` makes the runs and hands out a
``Results`` for what is in (``Runner.wait``). Every consumer (the pages, the notebooks, the
checks, ``python -m docexec``) reads outputs through it, so a page and its notebook cannot show
different outputs for the same include.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from docexec.core.problems import Problem
from docexec.core.records import STDOUT, Chunk, Failure, RunResult
from docexec.graphs import figures
from docexec.source import claims
from docexec.source.snippets import long_lines, read_source, sections, split_target

#: Output longer than this (characters) is cut, on the page and in the notebook alike, with a note
#: saying how much was cut.
MAX_OUTPUT_CHARS = 20_000


class UnknownTargetError(KeyError):
    """An include names a snippet that did not run in this build, or a section its file does not mark."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Results:
    """The runs of a build so far.

    Attributes:
        root: the repository root.
        folder: the snippets folder, relative to ``root`` (include targets are relative to it).
        runs: snippet path (``snippets/<chapter>/<example>.py``) -> its ``RunResult``.
        sources: snippet path -> its text as read for that run (what claims are checked against).
        executed: the paths that ran in this build (the others came from the run cache).
        execute: False when execution is switched off (``DOCEXEC_EXECUTE=0``): no runs, no outputs.
    """

    root: Path
    folder: str
    runs: Mapping[str, RunResult]
    sources: Mapping[str, str]
    executed: list[str] = field(default_factory=list)
    execute: bool = True

    def source(self, path: str) -> str:
        """The text of snippet ``path``: as read for its run, or as it is now if it did not run."""
        if path in self.sources:
            return self.sources[path]
        return read_source(self.root / path)

    def path(self, target: str) -> str:
        """The snippet path of an include target: ``ch/x.py:sec`` -> ``snippets/ch/x.py``."""
        return f"{self.folder}/{split_target(target)[0]}"

    def streams(self, target: str) -> list[Chunk]:
        """What the lines of ``target`` wrote, as chunks in order (neighbours on the same stream are
        joined into one, which keeps the line of the first), addresses shown as ``0x…`` and cut after
        ``MAX_OUTPUT_CHARS`` with a note.

        ``target`` is ``<chapter>/<example>.py`` for everything the run wrote (C-level output last),
        or ``<chapter>/<example>.py:<section>`` for what the lines of that section wrote.

        Raises:
            UnknownTargetError: the snippet has no result in this build, or no such section.
        """
        if not self.execute:
            return []
        name, section = split_target(target)
        path = f"{self.folder}/{name}"
        result = self.runs.get(path)
        if result is None:
            raise UnknownTargetError(f"{path} has no result in this build")
        if section is None:
            chunks = list(result.chunks)
            if result.raw:
                chunks.append(Chunk(0, result.raw))
            if result.dropped:
                chunks.append(Chunk(0, f"\n[… {result.dropped:,} more characters were written and not recorded]"))
        else:
            spans = sections(self.sources[path])
            if section not in spans:
                raise UnknownTargetError(f"{path} has no section {section!r}")
            first, last = spans[section]
            chunks = [chunk for chunk in result.chunks if first <= chunk.line <= last]
        masked = [replace(chunk, text=claims.mask(chunk.text, result.addresses)) for chunk in _joined(chunks)]
        return _cut(masked)

    def output(self, target: str) -> str:
        """The text of ``streams(target)`` as one block, without its trailing line breaks."""
        return "".join(chunk.text for chunk in self.streams(target)).rstrip("\n")

    def problems(self, diagrams: bool = True) -> list[Problem]:
        """Every failure of the runs: snippets that raised, hung or crashed, claims that do not hold,
        lines longer than ``snippets.LINE_LIMIT``, and (when every run succeeded, unless not
        ``diagrams``) committed DOT files that are missing, stale or orphaned (``diagram_problems``)."""
        found: list[Problem] = []
        for result in self.runs.values():
            if not result.ok:
                found.append(run_problem(result))
            found.extend(long_lines(result.path, self.sources[result.path]))
            found.extend(result.claim_problems if result.claim_problems is not None else check_claims(
                result, self.sources[result.path]))
        if diagrams:
            found.extend(self.diagram_problems())
        return found

    def diagram_problems(self) -> list[Problem]:
        """Committed DOT files that are missing, stale or orphaned (none looked for unless every run
        succeeded: a failed run draws nothing)."""
        if not all(r.ok for r in self.runs.values()):
            return []
        return figures.check(self.root, self.graphs(), set(self.runs), self.folder)

    def graphs(self) -> dict[str, str]:
        """Snippet path -> DOT text, for every snippet that ran and left a graph to draw."""
        return {path: r.graph.dot for path, r in self.runs.items() if r.ok and r.graph}

    def versions(self) -> dict[str, str]:
        """``{"torch": ..., "python": ...}`` of the interpreter that ran the snippets ({} without runs)."""
        return next((dict(r.versions) for r in self.runs.values() if r.versions), {})

    def tally(self) -> dict[str, int]:
        """How the results were had: ``{"run": n, "cached": n, "not_run": n}``, the last for
        snippets that could not be run at all (bad ``# docexec:`` options)."""
        ran = len(self.executed)
        cached = sum(1 for result in self.runs.values() if result.cached)
        return {"run": ran, "cached": cached, "not_run": len(self.runs) - ran - cached}


def check_claims(result: RunResult, source: str) -> list[Problem]:
    """The claims of ``result``'s snippet that its prints do not bear out (``claims.check``), kept
    on the result (``RunResult.claim_problems``) so that each result is checked once."""
    if result.claim_problems is None:
        syntax = result.failure is not None and result.failure.error == "SyntaxError"  # reported already
        result.claim_problems = [] if syntax else claims.check(result.path, source, claims.masked(result),
                                                                complete=result.ok, unattributed=result.unattributed)
    return result.claim_problems


def run_problem(result: RunResult) -> Problem:
    """The problem for a run that did not finish: what happened and where."""
    failure = result.failure or Failure("")
    if failure.error in ("Timeout", "Crash", "SystemExit", "Options", "MemoryError", "Encoding", "Unreadable"):
        message = failure.message
    else:
        message = f"raised {failure.error}: {failure.message}".rstrip(": ")
    return Problem(result.path, failure.line, message, detail=failure.traceback)


def _joined(chunks: list[Chunk]) -> list[Chunk]:
    joined: list[Chunk] = []
    for chunk in chunks:
        if not chunk.text:
            continue
        if joined and joined[-1].stream == chunk.stream:
            joined[-1] = replace(joined[-1], text=joined[-1].text + chunk.text)
        else:
            joined.append(chunk)
    return joined


def _cut(chunks: list[Chunk], limit: int = MAX_OUTPUT_CHARS) -> list[Chunk]:
    """Cut ``chunks`` after about ``limit`` characters in all, at a line end, with a note saying how
    much was left out."""
    text = "".join(chunk.text for chunk in chunks).rstrip("\n")
    if len(text) <= limit:
        return chunks
    cut = text.rfind("\n", 0, limit)
    cut = cut if cut > 0 else limit
    rest = text[cut:].lstrip("\n")
    note = f"\n[… output cut here: {len(rest):,} more characters, {rest.count(chr(10)) + 1:,} more lines]"
    kept, used = [], 0
    for chunk in chunks:
        if used + len(chunk.text) >= cut:
            kept.append(replace(chunk, text=chunk.text[: cut - used]))
            break
        kept.append(chunk)
        used += len(chunk.text)
    return _joined(kept + [Chunk(0, note, kept[-1].stream if kept else STDOUT)])
