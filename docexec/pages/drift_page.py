"""What readers see of a drift record (``docexec.versions.drift``): one folded note under a page's
title that lists the outputs another PyTorch prints differently, and the page "What changes in
PyTorch <version>".

``fence_note`` gives what the outputs of an include fence do on the other version, ``page_notes``
those of a page (drawn by ``docexec.pages.render.drift_summary_html`` under its title, each output
marked by ``drift_at_html`` where it is); ``page_markdown`` gives the page, which lists per chapter
the examples that differ, each linked to its output. Nothing here runs, reads a file or knows a
host: the MkDocs hook adds the page to the site (``PAGE``), the build puts the notes in.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass

from docexec.source.includes import Fence, Page, fence_mark
from docexec.source.snippets import split_target
from docexec.versions.drift import ExampleDrift, Record, changed_lines

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
        moved: when the only change to its output is the line number of a source file a warning
            names (``engine.cpp:1377`` on one version, ``engine.cpp:1382`` on the other): the
            file, the old line and the new one; None otherwise.
    """

    target: str
    added: str = ""
    removed: str = ""
    failure: str = ""
    figure: bool = False
    moved: SourceLineMove | None = None

    @property
    def shows(self) -> tuple:
        """What a reader is shown of it, without its target: parts that show the same are listed once."""
        return (self.moved,) if self.moved else (self.added, self.removed, self.failure, self.figure)


@dataclass(frozen=True)
class SourceLineMove:
    """A source file that a warning names (``engine.cpp``) at another line on the other version."""

    file: str
    before: str
    after: str


#: A source file and line as warnings name them: ``…/engine.cpp:1377``.
_SOURCE_LINE = re.compile(r"(?P<file>[\w.-]+\.(?:cpp|cc|c|h|hpp|py)):(?P<line>\d+)")


def source_line_move(before: str, after: str) -> SourceLineMove | None:
    """How ``after`` differs from ``before`` if only the line of one source file they name moved."""
    def lines(text: str) -> list[tuple[str, str]]:
        return [(m.group("file"), m.group("line")) for m in _SOURCE_LINE.finditer(text)]

    if _SOURCE_LINE.sub(r"\g<file>:N", before) != _SOURCE_LINE.sub(r"\g<file>:N", after):
        return None
    moved = {(a[0], a[1], b[1]) for a, b in zip(lines(before), lines(after), strict=True) if a != b}
    return SourceLineMove(*moved.pop()) if len(moved) == 1 else None


@dataclass(frozen=True)
class Note:
    """What a fence's outputs do on the other version: the HTML id of its mark (what the page's
    note and the page "What changes" link to), the other version, and one part per include that differs."""

    id: str
    torch: str
    parts: tuple[NotePart, ...]


def anchor(target: str) -> str:
    """The HTML id of the note of an include target: ``drift-`` and the target's letters and digits."""
    return "drift-" + re.sub(r"[^a-z0-9]+", "-", target.lower()).strip("-")


def anchors_in(html: str) -> set[str]:
    """The ids of the outputs a page's note lists (for hosts that check links to them)."""
    return set(re.findall(r'<span class="docexec-drift-at" id="([a-z0-9-]+)"', html))


def page_notes(record: Record, fences: tuple[Fence, ...]) -> list[Note]:
    """The notes of a page's running ``fences``, in page order (what its one folded note lists)."""
    return [note for fence in fences if fence.runs and (note := fence_note(record, fence)) is not None]


def fence_note(record: Record, fence: Fence) -> Note | None:
    """What ``fence``'s outputs do on ``record.torch``, or None when nothing it shows differs."""
    parts = []
    for include in fence.includes:
        drift = record.examples.get(include.file)
        if drift is None:
            continue
        change = drift.outputs.get(include.target)
        added, removed = changed_lines(change.before, change.after) if change else ("", "")
        moved = source_line_move(change.before, change.after) if change else None
        last = include.file in fence.figured
        part = NotePart(include.target, added, removed, drift.failure if last else "", bool(drift.figure) and last,
                        moved if not (last and (drift.failure or drift.figure)) else None)
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
    "failure": lambda c, *_: f"It fails: {_code(c.after)}.",
    "new warning": lambda c, *_: f"A new warning: {_code(c.after)}",
    "gone warning": lambda c, *_: f"It no longer warns {_code(c.before)}",
}


def _items(drift: ExampleDrift, record: Record) -> tuple[str, ...]:
    """What one example does on the other version, as Markdown list items that name neither the
    example nor the line of a warning or failure (examples that do the same share them)."""
    old, new = record.baseline, record.torch
    items = [f"- {f'Line {c.line}: ' if c.kind == 'claim' else ''}{_LISTED[c.kind](c, old, new)}"
             for c in drift.line_changes()]
    for target, change in drift.outputs.items():
        section = split_target(target)[1]
        what = f"The output of its section {_code(section)}" if section else "Its output"
        moved = source_line_move(change.before, change.after)
        if moved:
            items.append(f"- {what}: only a line number in a warning changes, {_code(moved.file)} line "
                         f"{moved.before} becomes {moved.after}.")
            continue
        items.append(f"- {what} ({old} `-`, {new} `+`):")
        items += _block(_output_diff(change.before, change.after), "diff", "    ")
    if drift.figure:
        items.append(f"- Its graph figure, as the diff of its DOT file ({old} `-`, {new} `+`):")
        items += _block(drift.figure.rstrip("\n").split("\n"), "diff", "    ")
    return tuple(items)


def _where(drift: ExampleDrift) -> str:
    """The lines of an example whose warning or failure changes, as `` (line 8)``, or ""."""
    lines = sorted({c.line for c in drift.line_changes() if c.kind != "claim" and c.line})
    if not lines:
        return ""
    return f" (line{'s' * (len(lines) > 1)} {', '.join(map(str, lines))})"


def _grouped(entries: list[tuple[str, ExampleDrift]], record: Record) -> list[str]:
    """The Markdown of examples (``(linked name, drift)``), those that change alike listed together
    and their change shown once."""
    groups: dict[tuple[str, ...], list[str]] = {}
    for label, drift in entries:
        groups.setdefault(_items(drift, record), []).append(label + _where(drift))
    lines = []
    for items, labels in groups.items():
        lines += ["", ", ".join(labels) + (f" ({len(labels)} examples, alike):" if len(labels) > 1 else ""), "",
                  *items]
    return lines


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
        f"listed prints the same and draws the same graph on both; examples that change alike are listed together. "
        f"On a chapter, the folded note under its title lists what PyTorch {record.torch} prints differently.", "",
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
        entries = []
        for path in listed:
            name_in_page, target = _linked(record, page, path)
            label = _code(name_in_page)
            entries.append((f"[{label}]({name}#{target})" if target else label, record.examples[path]))
            shown.add(path)
        lines += _grouped(entries, record)
    rest = [path for path in record.examples if path not in shown]
    if rest:
        lines += ["", "## Examples no page shows"]
        lines += _grouped([(_code(path), record.examples[path]) for path in rest], record)
    return "\n".join(lines) + "\n"
