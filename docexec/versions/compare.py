"""Two runs of every example, on the pinned PyTorch and on another, compared: what differs for
each example (``docexec.versions.drift.ExampleDrift``), and the record made of it."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from docexec.core.records import STDERR, RunResult
from docexec.graphs import figures
from docexec.run.results import Results, run_problem
from docexec.source import claims
from docexec.source.snippets import sections
from docexec.versions.drift import ClaimChange, ExampleDrift, OutputChange, Record, Warned, digests
from docexec.versions.sideenv import base_version

_SITE_PACKAGES = re.compile(r"(?:[A-Za-z]:)?[\\/](?:[^\\/\s'\"<>]+[\\/])*site-packages[\\/]")
_WARNING = re.compile(r"^(?P<where>\S.*?):(?P<line>\d+): (?P<category>\w*Warning): (?P<message>.*)$")
_LOCATION = re.compile(r"\S+\.\w+:\d+")


def neutral(text: str) -> str:
    """``text`` with every path up to a ``site-packages`` folder written ``…/site-packages/``."""
    return _SITE_PACKAGES.sub("…/site-packages/", text)


def compare(main: Results, side: Results, root: Path, folder: str) -> dict[str, ExampleDrift]:
    """What differs, per example, between the baseline's runs ``main`` and the other version's
    ``side`` (both of the same snippets). Examples whose baseline run failed are left out: the
    course must pass on its own version first (``make check``).

    Returns:
        path -> ``ExampleDrift``, only for examples where something differs, sorted by path.
    """
    found = {}
    for path in sorted(main.runs):
        before, after = main.runs[path], side.runs.get(path)
        if after is None or not before.ok:
            continue
        source = main.sources[path]
        drift = ExampleDrift(path, claims=_claims(source, claims.masked(before), claims.masked(after), after.ok))
        if not after.ok:
            drift.failure, drift.failure_line = neutral(run_problem(after).message), after.failure.line
        drift.new_warnings, drift.gone_warnings = _warnings(before, after)
        if after.ok:
            dot = after.graph.dot if after.graph else ""
            drift.figure = _figure_diff(root, folder, path, dot, main.versions(), side.versions())
        name = path.removeprefix(f"{folder}/")
        for target in [name] + [f"{name}:{section}" for section in sections(source)]:
            old, new = neutral(main.output(target)), neutral(side.output(target))
            if old != new:
                drift.outputs[target] = OutputChange(old, new)
        if drift.claims or drift.failure or drift.new_warnings or drift.gone_warnings or drift.figure or drift.outputs:
            found[path] = drift
    return found


def _claims(source: str, before: list, after: list, complete: bool) -> list[ClaimChange]:
    """The claims of ``source`` that hold for the prints ``before`` and not for ``after``."""
    try:
        sites = claims.find_print_sites(source)
    except claims.ClaimSyntaxError:
        return []
    old, new = claims.printed_lines(sites, before), claims.printed_lines(sites, after)
    changes = []
    for site in sites:
        want = site.expected
        if want is None or old[site.line] is None or not claims.matches(want, old[site.line]):
            continue  # no claim, or one the baseline does not bear out: `make check` reports it
        if new[site.line] is None:
            if complete:
                changes.append(ClaimChange(site.line, old[site.line], None))
        elif not claims.matches(want, new[site.line]):
            changes.append(ClaimChange(site.line, old[site.line], new[site.line]))
    return changes


def _warnings(before: RunResult, after: RunResult) -> tuple[list[Warned], list[Warned]]:
    """The warnings only ``after`` writes and those only ``before`` writes, told apart by category
    and message (file locations in the message, such as a C++ line, do not count; addresses are
    masked as each run found them)."""
    old, new = _warned(before), _warned(after)
    return [w for key, w in new.items() if key not in old], [w for key, w in old.items() if key not in new]


def _warned(result: RunResult) -> dict[tuple[str, str], Warned]:
    found = {}
    for chunk in result.chunks:
        if chunk.stream != STDERR:
            continue
        for row in chunk.text.splitlines():
            match = _WARNING.match(row)
            if match:
                message = neutral(claims.mask(match.group("message"), result.addresses))
                key = (match.group("category"), _LOCATION.sub("…", message))
                found.setdefault(key, Warned(chunk.line, f"{match.group('category')}: {message}"))
    return found


def _figure_diff(root: Path, folder: str, path: str, dot: str, old: dict, new: dict) -> str:
    """The unified diff from the committed DOT file of ``path`` to the graph ``dot`` ("" if the same)."""
    target = figures.diagram_path(path, folder)
    try:
        committed = (Path(root) / target).read_text(encoding="utf-8")
    except OSError:
        committed = ""
    drawn = figures.committed_text(path, dot) if dot else ""
    if committed == drawn:
        return ""
    return "".join(difflib.unified_diff(
        committed.splitlines(keepends=True), drawn.splitlines(keepends=True), n=1,
        fromfile=f"{target} (PyTorch {base_version(old.get('torch', '?'))})",
        tofile=f"{target} (PyTorch {base_version(new.get('torch', '?'))})"))


def make_record(main: Results, side: Results, torch: str, root: Path, folder: str) -> Record:
    """The record of comparing ``main`` (the pinned PyTorch) with ``side`` (PyTorch ``torch``)."""
    return Record(torch=torch, baseline=base_version(main.versions().get("torch", "?")),
                  python=side.versions().get("python", "?"), examples_run=len(main.runs),
                  digests=digests(root, folder), examples=compare(main, side, root, folder))


# -- the report -----------------------------------------------------------------------------------
