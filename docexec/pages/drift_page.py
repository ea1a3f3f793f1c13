"""What readers see of a drift record (``docexec.versions.drift``): a note under each output that another
PyTorch prints differently, and the page "What changes in PyTorch <version>".

``fence_note`` gives the note of an include fence (drawn by ``docexec.pages.render.drift_note_html``
under its output block); ``page_markdown`` gives the page, which lists per chapter the examples
that differ, each linked to its note. Nothing here runs, reads a file or knows a host: the
MkDocs hook adds the page to the site (``PAGE``), the build puts the notes in.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass

from docexec.source.includes import Fence, Page, fence_mark
from docexec.source.snippets import split_target
from docexec.versions.drift import ExampleDrift, Record, changed_lines, first_difference

PAGE = "what-changes.md"  # the generated page, relative to the docs folder


@dataclass(frozen=True)
class NotePart:
    """What one include of a fence does on the other version.

    Attributes:
        target: the include target (``<chapter>/<example>.py`` or ``...:<section>``).
        added: the lines of its output that read differently or are new ("" if none).
        removed: the lines it no longer prints, with nothing in their place ("" if none).
        failure: how the example's run fails ("" if it runs; given at its last include on a page).
        figure: its graph differs (given at its last include on a page, where the figure is).
    """

    target: str
    added: str = ""
    removed: str = ""
    failure: str = ""
    figure: bool = False


@dataclass(frozen=True)
class Note:
    """The note under a fence's output block: its HTML id (what the page links to), the other
    version, and one part per include that differs."""

    id: str
    torch: str
    parts: tuple[NotePart, ...]


def anchor(target: str) -> str:
    """The HTML id of the note of an include target: ``drift-`` and the target's letters and digits."""
    return "drift-" + re.sub(r"[^a-z0-9]+", "-", target.lower()).strip("-")


def anchors_in(html: str) -> set[str]:
    """The ids of the notes in a page's HTML (for hosts that check links to them)."""
    return set(re.findall(r'<div class="admonition info docexec-drift" id="([a-z0-9-]+)"', html))


def fence_note(record: Record, fence: Fence) -> Note | None:
    """The note under ``fence``'s output, or None when nothing it shows differs on ``record.torch``."""
    parts = []
    for include in fence.includes:
        drift = record.examples.get(include.file)
        if drift is None:
            continue
        change = drift.outputs.get(include.target)
        added, removed = changed_lines(change.before, change.after) if change else ("", "")
        last = include.file in fence.figured
        part = NotePart(include.target, added, removed, drift.failure if last else "", bool(drift.figure) and last)
        if part.added or part.removed or part.failure or part.figure:
            parts.append(part)
    return Note(anchor(parts[0].target), record.torch, tuple(parts)) if parts else None


def _code(text: str) -> str:
    """``text`` as an inline code span, its delimiter longer than any run of backticks in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    tick = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{tick}{pad}{text}{pad}{tick}"


def _block(lines: list[str], language: str, indent: str) -> list[str]:
    """A fenced block of ``lines`` (fence longer than any backtick run in them), indented."""
    fence = fence_mark("\n".join(lines))
    body = [indent + line if line else "" for line in lines]
    return ["", f"{indent}{fence}{language}", *body, f"{indent}{fence}", ""]


def _output_diff(before: str, after: str) -> list[str]:
    """The lines of a ``diff`` block from ``before`` to ``after``: changed lines only, ``…`` between hunks."""
    rows = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=before.split("\n"), b=after.split("\n"),
                                                        autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        rows += ([" …"] if rows else []) + [f"-{line}" for line in before.split("\n")[i1:i2]]
        rows += [f"+{line}" for line in after.split("\n")[j1:j2]]
    return rows


def _claim_item(change, old: str, new: str) -> str:
    after = "nothing: that print no longer runs" if change.after is None else _code("\n".join(change.after))
    return f"{old} printed {_code(chr(10).join(change.before))}, {new} prints {after}; the claim there would change."


#: How the page says each kind of line change (``LineChange.kind``).
_LISTED = {
    "claim": _claim_item,
    "failure": lambda c, *_: f"it fails: {_code(c.after)}.",
    "new warning": lambda c, *_: f"a new warning, {_code(c.after)}.",
    "gone warning": lambda c, *_: f"no longer warns {_code(c.before)}.",
}


def _example(drift: ExampleDrift, record: Record, title: str) -> list[str]:
    """The Markdown of one example's entry: a title line, then one item per change."""
    old, new = record.baseline, record.torch
    items = [f"- Line {change.line}: " + _LISTED[change.kind](change, old, new) for change in drift.line_changes()]
    for target, change in drift.outputs.items():
        items.append(f"- The output of {_code(target)} ({old} `-`, {new} `+`); the first difference: "
                     f"{_code(first_difference(change))}.")
        items += _block(_output_diff(change.before, change.after), "diff", "    ")
    if drift.figure:
        items.append(f"- Its graph figure, as the diff of its DOT file ({old} `-`, {new} `+`):")
        items += _block(drift.figure.rstrip("\n").split("\n"), "diff", "    ")
    return ["", title, "", *items]


def _linked(record: Record, page: Page, path: str) -> tuple[str, str | None]:
    """How ``page`` names the example ``path`` (its first include's file) and the id of the first
    note on ``page`` that speaks of it (None if none does)."""
    includes = [(fence, i) for fence in page.fences if fence.runs for i in fence.includes if i.file == path]
    for fence, include in includes:
        note = fence_note(record, fence)
        if note is not None and any(part.target == include.target for part in note.parts):
            return split_target(includes[0][1].target)[0], note.id
    return split_target(includes[0][1].target)[0], None


def _prose(changes: list, record: Record) -> list[str]:
    """The values a page's prose quotes that the other version shows differently, as a list."""
    if not changes:
        return []
    items = [f"- {_code(change.quote)}: {_code(change.before)} here, "
             + ("no value" if change.after is None else _code(change.after)) + f" on PyTorch {record.torch}"
             for change in changes]
    return ["", "Values its prose quotes:", "", *items]


def page_markdown(record: Record, pages: list[tuple[str, Page]]) -> str:
    """The page "What changes in PyTorch <version>": a summary, then per page that shows an
    example that differs (``pages``: each page's path in the docs folder with its record, in nav
    order), each such example linked to its note there, and the examples no page shows.
    """
    quoted_now = {(page.name, quote.key) for _, page in pages for quote in page.quotes}
    record = dataclasses.replace(record, prose=[c for c in record.prose if (c.page, c.quote) in quoted_now])
    n = record.counts()  # a quote edited out of its page since the record was made is not listed
    lines = [
        f"# What changes in PyTorch {record.torch}", "",
        f"Every output in this course comes from PyTorch {record.baseline}, the version it pins and checks. Each "
        f"example was also run on PyTorch {record.torch} (on Python {record.python}), by the same rules and with "
        f"the same checks (`make drift TORCH={record.torch}`). This page lists every difference; an example not "
        f"listed prints the same and draws the same graph on both. On the chapters, a note under an output says "
        f"what PyTorch {record.torch} prints instead.", "",
        "| what differs | how many |", "|---|---|",
        f"| examples whose output or graph differs | {n['examples']} of {record.examples_run} |",
        f"| claims that would change | {n['claims']} |",
        f"| new warnings | {n['new_warnings']} |",
        f"| warnings no longer written | {n['gone_warnings']} |",
        f"| graph figures that would change | {n['figures']} |",
        f"| examples that would fail | {n['failures']} |",
        f"| values quoted in the prose that would change | {n['prose']} |",
    ]
    shown = set()
    for name, page in pages:
        listed = [path for path in page.snippets if path in record.examples]
        prose = [change for change in record.prose if change.page == page.name]
        if not listed and not prose:
            continue
        title = page.lines[page.title].lstrip("#").strip() if page.title is not None else name
        lines += ["", f"## [{title}]({name})"]
        lines += _prose(prose, record)
        for path in listed:
            name_in_page, target = _linked(record, page, path)
            label = _code(name_in_page)
            lines += _example(record.examples[path], record, f"[{label}]({name}#{target})" if target else label)
            shown.add(path)
    rest = [path for path in record.examples if path not in shown]
    if rest:
        lines += ["", "## Examples no page shows"]
        for path in rest:
            lines += _example(record.examples[path], record, _code(path))
    return "\n".join(lines) + "\n"
