"""``make drift``: every example run on the pinned PyTorch and on another, compared and reported."""

from __future__ import annotations

import sys
from pathlib import Path

from docexec.pages import quoted
from docexec.run.execute import ExecutionError
from docexec.run.runner import Runner
from docexec.source.config import include_paths
from docexec.source.includes import read_pages
from docexec.source.snippets import SNIPPETS_DIR
from docexec.versions import drift, sideenv
from docexec.versions.compare import make_record
from docexec.versions.drift import Record, first_difference, show_lines


def drift_report(root: Path, torch: str | None, python: str | None, record: bool, out=sys.stdout) -> int:
    """Run every snippet on the pinned PyTorch and on ``torch`` (its side environment, made if
    missing, or the interpreter ``python``), print what would change and a summary line, and write
    the drift record if ``record`` (the only file written).

    Returns:
        0 when both runs could be made, whatever they found; 2 when the environment could not be
        made or run (one line on stderr says why).
    """
    if python is None:
        try:
            python = sideenv.ensure(root, torch, out)
        except sideenv.SideEnvError as exc:
            print(f"docexec drift: cannot make the PyTorch {torch} environment: {exc}", file=sys.stderr)
            return 2
    main_run, side_run = Runner(root, SNIPPETS_DIR), Runner(root, SNIPPETS_DIR, python=python)
    try:
        main_run.start()
        side_run.start()
        main, side = main_run.wait(), side_run.wait()
    except ExecutionError as exc:
        print(f"docexec drift: the examples could not be run by {python}: {exc}", file=sys.stderr)
        return 2
    finally:
        main_run.close()
        side_run.close()
    ran = sideenv.base_version(side.versions().get("torch", "?"))
    if torch is not None and ran != sideenv.base_version(torch):
        print(f"docexec drift: {python} runs PyTorch {ran}, not {torch}", file=sys.stderr)
        return 2
    found = make_record(main, side, torch or ran, root, SNIPPETS_DIR)
    found.prose = quoted.prose_changes(read_pages(root, include_paths(root), SNIPPETS_DIR), main, side)
    broken = main.problems()
    if broken:
        print(f"docexec drift: the course has {len(broken)} problem(s) on PyTorch {found.baseline} itself (`make "
              "check` lists them); the examples that fail there are not compared", file=out)
    for line in report(found):
        print(line, file=out)
    if not record:
        kept = "the record was not written (RECORD=0)"
    elif drift.write(root, found):
        kept = f"written to {drift.RECORD}: commit it, and the site shows it (What changes in PyTorch {found.torch})"
    else:
        kept = f"{drift.RECORD} is up to date"
    print(f"docexec drift: {summary(found)}; {kept}", file=out)
    return 0


#: How the report says each kind of line change (``LineChange.kind``).
_REPORTED = {
    "claim": lambda c, old, new: f"{old} printed {show_lines(c.before)}, {new} prints {show_lines(c.after)}",
    "failure": lambda c, _old, new: f"fails on {new}: {c.after}",
    "new warning": lambda c, _old, new: f"newly warns on {new}: {c.after}",
    "gone warning": lambda c, _old, new: f"no longer warns on {new}: {c.before}",
}


def report(record: Record) -> list[str]:
    """The report of ``record``, one ``file:line: what`` line per change (a figure's diff indented
    under its line), in path order."""
    old, new = record.baseline, record.torch
    lines = []
    for path, example in record.examples.items():
        lines += [f"{path}:{change.line}: " + _REPORTED[change.kind](change, old, new)
                  for change in example.line_changes()]
        if example.figure:
            target = example.figure.splitlines()[0].removeprefix("--- ").split(" (")[0]
            lines.append(f"{target}: the graph of {path} differs on {new}:")
            lines += ["    " + row for row in example.figure.rstrip("\n").splitlines()]
        if example.outputs and not (example.claims or example.failure or example.new_warnings or example.gone_warnings):
            change = next(iter(example.outputs.values()))
            lines.append(f"{path}: its output differs on {new} where no claim looks: {first_difference(change)}")
    for change in record.prose:
        shows = "names no value" if change.after is None else f"shows {change.after!r}"
        lines.append(f"{change.page}: {change.quote} shows {change.before!r} on {old}; on {new} it {shows}")
    return lines


def summary(record: Record) -> str:
    """One line: how many examples differ and how many claims, warnings, figures and runs change."""
    n = record.counts()
    return (f"PyTorch {record.baseline} -> {record.torch}: {n['examples']} of {record.examples_run} examples differ: "
            f"{n['claims']} claim(s) would change, {n['new_warnings']} new warning(s), {n['gone_warnings']} "
            f"warning(s) gone, {n['figures']} figure(s) would change, {n['failures']} example(s) would fail, "
            f"{n['prose']} value(s) quoted in prose would change")
