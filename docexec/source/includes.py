"""A page read once: where it includes files, where its outputs and figures go, what is wrong with it.

A page includes a snippet with ``pymdownx.snippets`` in a ``python`` fence (``--8<-- "ch/x.py"``
or ``...:<section>``), and a concept diagram with an image line naming a hand-written DOT file
(``![alt](diagrams/concepts/x.dot "caption")``). ``parse_page`` reads a page once into a ``Page``;
the Markdown extension, the MkDocs hook and the notebooks all work from that record."""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from docexec.core.problems import Problem
from docexec.source.quotes import Quote, QuoteSyntaxError, find_quotes
from docexec.source.snippets import INCLUDE, split_lines, split_target
from docexec.source.targets import resolve

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_TITLE = re.compile(r"^#[ \t]+\S")
#: A concept diagram: an image line whose target is a DOT file under diagrams/.
DIAGRAM = re.compile(r'^(?P<indent>[ \t]*)!\[(?P<alt>[^\]]+)\]\((?P<path>diagrams/[^)\s]+\.dot)'
                     r'(?:[ \t]+"(?P<caption>[^"]*)")?\)[ \t]*$')


@dataclass(frozen=True)
class Include:
    """One ``--8<--`` line inside a fence.

    Attributes:
        line: its 1-based line in the page.
        target: what it names, as written (``ch/x.py`` or ``ch/x.py:section``).
        file: the repository path it resolves to (the first include folder that has it), or ""
            if it names no file.
        section: the section it names, or None for the whole file.
    """

    line: int
    target: str
    file: str
    section: str | None


@dataclass(frozen=True)
class Fence:
    """A fenced block of a page that holds only include lines.

    Attributes:
        start, end: 0-based lines of its opening and closing fence.
        indent: the opening fence's indentation.
        includes: its include lines.
        runs: True when it is a ``python`` fence whose includes are all snippets (files under the
            snippets folder): their outputs follow it on the page. False for code shown without
            running (a fence including ``docexec/graphs/graph.py``).
        figured: the snippet paths whose figure follows this fence (the last fence including them).
        answer: for an exercise (a fence marked ``<!-- docexec: exercise -->`` on the line before),
            the 0-based line of the ``<!-- docexec: answer -->`` marker after it, where its output
            and figure go instead (inside a folded answer, say); None for any other fence.
    """

    start: int
    end: int
    indent: str
    includes: tuple[Include, ...]
    runs: bool
    figured: tuple[str, ...] = ()
    answer: int | None = None


@dataclass(frozen=True)
class Diagram:
    """A concept diagram line (0-based ``index``) with its DOT file's repository path, alt text and caption."""

    index: int
    indent: str
    alt: str
    path: str
    caption: str


@dataclass
class Page:
    """A page's text and what ``parse_page`` found in it.

    Attributes:
        name: the page as messages name it (``docs/01-computational-graph.md``).
        lines: its lines.
        fences: the fences that hold only includes, in order.
        diagrams: its concept diagram lines, outside fences.
        fenced: the 0-based numbers of every line inside a fence, fences included.
        title: the 0-based line of its ``# `` title, or None.
        quotes: the values its prose quotes from its examples' runs (``docexec.source.quotes``).
        problems: what is wrong with it: includes of missing files or sections, includes by line
            numbers, diagrams naming a missing file, quotes of examples it does not run
            (``page:line: reason``).
    """

    name: str
    lines: list[str]
    fences: list[Fence] = field(default_factory=list)
    diagrams: list[Diagram] = field(default_factory=list)
    fenced: set[int] = field(default_factory=set)
    title: int | None = None
    quotes: list[Quote] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def snippets(self) -> list[str]:
        """The snippet paths whose outputs the page shows, in order, each once."""
        return list(dict.fromkeys(i.file for f in self.fences if f.runs for i in f.includes))


def read_pages(root: Path, include_paths: list[str], folder: str, docs_dir: str = "docs") -> list[Page]:
    """Every page under ``root/docs_dir``, read (``parse_page``), in path order."""
    return [parse_page(path.read_text(encoding="utf-8"), path.relative_to(root).as_posix(), str(root), include_paths,
                       folder) for path in sorted((Path(root) / docs_dir).rglob("*.md"))]


def include_folders(base_path, root: str) -> list[str]:
    """``pymdownx.snippets``' ``base_path`` option (a path or a list; relative paths are relative
    to the working folder, as pymdownx reads them; its default is ``"."``) as folders relative to
    ``root``, with ``/`` separators: how pages name the folders their includes come from."""
    paths = [base_path] if isinstance(base_path, str) else list(base_path or ["."])
    return [os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/") for path in paths]


def parse_page(text: str, name: str, root: str, include_paths: list[str], folder: str) -> Page:
    """Read ``text`` (a page's Markdown) into a ``Page``.

    Args:
        text: the page's Markdown.
        name: how messages name the page (``docs/<page>.md``).
        root: the repository root.
        include_paths: the folders includes are resolved against, relative to ``root``, in order (as
            ``pymdownx.snippets``' ``base_path``).
        folder: the snippets folder, relative to ``root``: includes of files under it run.
    """
    page = Page(name, split_lines(text))
    blocks = list(_fences(page.lines))
    page.fenced = {i for start, end, _, _ in blocks for i in range(start, end + 1)}
    _prose(page, root)
    folders = {base: os.path.realpath(os.path.join(root, base)) for base in include_paths}
    for start, end, indent, info in blocks:
        includes = _includes(page, start, end, root, folders)
        if includes is None:
            continue
        runs = _runs(page, start, info, includes, folder)
        page.fences.append(Fence(start, end, indent, includes, runs))
    page.fences = _with_figures(page.fences)
    _answers(page)
    _includes_outside_fences(page, root, folders, folder)
    _block_includes(page, folder)
    _quoted_includes(page)
    _quotes(page, folder)
    page.problems.sort(key=lambda problem: problem.line)
    return page


def _prose(page: Page, root: str) -> None:
    """The page's title line and its concept diagrams, read from the lines outside its fences."""
    for number, line in enumerate(page.lines):
        if number in page.fenced:
            continue
        if page.title is None and _TITLE.match(line):
            page.title = number
        diagram = DIAGRAM.match(line)
        if diagram:
            page.diagrams.append(Diagram(number, diagram.group("indent"), diagram.group("alt"), diagram.group("path"),
                                         diagram.group("caption") or ""))
            if not os.path.isfile(os.path.join(root, diagram.group("path"))):
                page.problems.append(Problem(page.name, number + 1, f"shows the diagram {diagram.group('path')!r}, "
                                                                    "which is not a file"))


def _quotes(page: Page, folder: str) -> None:
    """The quotes in the page's prose, each with the example it names (``Quote.file``); a quote
    that cannot be read, or that names an example the page does not run, is a problem of the page."""
    examples: dict[str, list[str]] = {}
    for path in page.snippets:
        name = path.removeprefix(f"{folder}/").removesuffix(".py")  # chapter/example
        for key in (name, name.rsplit("/", 1)[-1]):
            examples.setdefault(key, []).append(path)
    commented = _in_comments(page)
    for number, line in enumerate(page.lines):
        if number in page.fenced or number in commented or "{{" not in line:
            continue
        try:
            after = page.lines[number + 1] if number + 1 < len(page.lines) else ""
            found = find_quotes(line, number + 1, heading=bool(_SETEXT.match(after)) and bool(line.strip()))
        except QuoteSyntaxError as exc:
            page.problems.append(Problem(page.name, number + 1, str(exc)))
            continue
        for quote in found:
            paths = examples.get(quote.example.removesuffix(".py"), [])
            if len(paths) == 1:
                page.quotes.append(dataclasses.replace(quote, file=paths[0]))
                continue
            why = (f"names {len(paths)} examples of the page ({', '.join(paths)}): add the chapter folder"
                   if paths else "is not an example this page runs")
            page.problems.append(Problem(page.name, number + 1, f"quotes {quote.example!r}, which {why}"))


#: The underline that makes the line above it a heading.
_SETEXT = re.compile(r"^[ \t]*(?:=+|-+)[ \t]*$")


def _in_comments(page: Page) -> set[int]:
    """The 0-based lines of ``page`` inside an HTML comment that spans lines (nothing there is shown)."""
    inside, found = False, set()
    for number, line in enumerate(page.lines):
        if number in page.fenced:
            continue
        if inside:
            found.add(number)
            inside = "-->" not in line
        elif "<!--" in line and "-->" not in line.split("<!--")[-1]:
            inside = True
    return found


def _includes_outside_fences(page: Page, root: str, folders: dict[str, str], folder: str) -> None:
    """An example included outside a fence of includes is a problem: its code would read as prose."""
    in_fences = {include.line for fence in page.fences for include in fence.includes}
    for number, line in enumerate(page.lines, start=1):
        match = INCLUDE.match(line)
        if match and number not in in_fences:
            include = _resolve(page, number, match.group("target"), root, folders)
            if include.file and include.file.startswith(f"{folder}/") and number - 1 not in page.fenced:
                page.problems.append(Problem(page.name, number, f"includes {include.target!r} outside a fence, where "
                                             "its code would read as prose: put it in a python fence (it runs) or a "
                                             "fence marked '<!-- docexec: show -->' (shown without running)"))


#: The opening or closing line of pymdownx.snippets' block form (a file name a line between two).
_BLOCK = re.compile(r"^[ \t]*-{1,}8<-{1,}[ \t]*$")


def _block_includes(page: Page, folder: str) -> None:
    """An example named in the block form of an include (``--8<--``, then file names a line, then
    ``--8<--``) is a problem of the page: that form is not read as an include that runs, so the
    example would show without running (or as prose)."""
    inside = None
    for number, line in enumerate(page.lines):
        if _BLOCK.match(line):
            inside = None if inside is not None else number
            continue
        name = line.strip()
        if inside is not None and name and not name.startswith(";"):
            target, _ = split_target(name)
            if target.startswith(f"{folder}/") or target.endswith(".py"):
                page.problems.append(Problem(page.name, number + 1, f"names {name!r} in the block form of an "
                                             "include, which does not run it: write '--8<-- \"" + name + "\"' in a "
                                             "python fence (it runs) or in a fence marked "
                                             "'<!-- docexec: show -->' (shown without running)"))


#: An include (or the block form's ``--8<--``) in a blockquote, at any depth, after a list marker too.
_QUOTED_INCLUDE = re.compile(r"^[ \t]*(?:(?:[-*+]|\d+[.)])[ \t]+)?(?:>[ \t]?)+[ \t]*-{1,}8<-{1,}(?:[ \t]+"
                             r"(?:\"(?P<double>[^\"]*)\"|'(?P<single>[^']*)'))?[ \t]*$")


def _quoted_includes(page: Page) -> None:
    """An include in a blockquote, read by neither pymdownx.snippets nor the build (not as text)."""
    text = page.fenced | _in_comments(page)
    for number, line in enumerate(page.lines, start=1):
        if (match := _QUOTED_INCLUDE.match(line)) and number - 1 not in text:
            target = match.group("double") if match.group("double") is not None else match.group("single")
            page.problems.append(Problem(page.name, number, f"includes {'a file' if target is None else repr(target)}"
                                         " inside a blockquote ('>'), where "
                                         "it is neither read nor run: take the fence out of the blockquote (an "
                                         "admonition, indented by four spaces, works)"))


#: The line before a fence whose includes are shown without running (a helper module, say).
SHOW = re.compile(r"^[ \t]*<!--[ \t]*docexec:[ \t]*show[ \t]*-->[ \t]*$")
#: The line before an exercise: a fence that runs, whose output goes to the answer marker after it.
EXERCISE = re.compile(r"^[ \t]*<!--[ \t]*docexec:[ \t]*exercise[ \t]*-->[ \t]*$")
#: Where an exercise's output and figure go (the first such line after its fence).
ANSWER = re.compile(r"^(?P<indent>[ \t]*)<!--[ \t]*docexec:[ \t]*answer[ \t]*-->[ \t]*$")


def _before(page: Page, start: int) -> str:
    """The last line before line ``start`` that is not blank ("" if none)."""
    return next((page.lines[n] for n in range(start - 1, -1, -1) if page.lines[n].strip()), "")


def _answers(page: Page) -> None:
    """Send each exercise fence's output to the answer marker after it, before the next exercise;
    an exercise without one, or a marker without an exercise, is a problem of the page."""
    taken = set()
    exercises = [number for number, fence in enumerate(page.fences) if EXERCISE.match(_before(page, fence.start))]
    for index, number in enumerate(exercises):
        fence = page.fences[number]
        until = page.fences[exercises[index + 1]].start if index + 1 < len(exercises) else len(page.lines)
        answer = next((n for n in range(fence.end + 1, until)
                       if ANSWER.match(page.lines[n]) and n not in page.fenced and n not in taken), None)
        if answer is None or not fence.runs:
            page.problems.append(Problem(page.name, fence.start + 1, "an exercise needs a fence of code that runs "
                                         "and a '<!-- docexec: answer -->' line after it, where its output goes"))
            continue
        taken.add(answer)
        page.fences[number] = dataclasses.replace(fence, answer=answer)
    for n, line in enumerate(page.lines):
        if ANSWER.match(line) and n not in page.fenced and n not in taken:
            page.problems.append(Problem(page.name, n + 1, "this '<!-- docexec: answer -->' line follows no "
                                         "exercise ('<!-- docexec: exercise -->' before a fence)"))


def _runs(page: Page, start: int, info: list[str], includes: tuple[Include, ...], folder: str) -> bool:
    """Whether a fence of includes runs: every include is an example (a ``.py`` file under the
    snippets folder whose name does not start with ``_``) in a ``python`` fence. A fence marked
    ``<!-- docexec: show -->`` on the line before, and one that includes no file of the snippets
    folder (``docexec/graphs/graph.py``), shows its code without running. Anything else is a problem of
    the page: the author must say whether the code runs."""
    examples = [i for i in includes if _is_example(i.file, folder)]
    others = [i for i in includes if i.file and i.file.startswith(f"{folder}/") and i not in examples]
    if SHOW.match(_before(page, start)) or not (examples or others):
        return False
    python = bool(info) and info[0] in ("python", "py")
    outside = [i for i in includes if i.file and not i.file.startswith(f"{folder}/")]
    for include in others if python else []:
        page.problems.append(Problem(page.name, include.line, f"includes {include.target!r}, which is not an example "
                                     "(a .py file whose name does not start with '_'), in a fence of code that "
                                     "runs; mark the fence with '<!-- docexec: show -->' on the line before to "
                                     "show it without running"))
    if examples and not python:
        page.problems.append(Problem(page.name, examples[0].line, f"includes the example "
                                     f"{examples[0].target!r} in a '{' '.join(info) or 'plain'}' fence, where it "
                                     "would be shown without running: use a python fence, or mark the fence "
                                     "with '<!-- docexec: show -->' on the line before"))
    if examples and outside:
        page.problems.append(Problem(page.name, examples[0].line, "mixes examples with files that are not "
                                     "examples in one fence; give each its own fence"))
    return python and not others and len(examples) == len(includes)


def _is_example(file: str, folder: str) -> bool:
    name = file.rpartition("/")[2]
    return file.startswith(f"{folder}/") and name.endswith(".py") and not name.startswith("_")


def _includes(page: Page, start: int, end: int, root: str, folders: dict[str, str]) -> tuple[Include, ...] | None:
    """The include lines between ``start`` and ``end``, or None if the fence holds anything else
    (blank lines aside). Each bad include is added to ``page.problems``. ``folders``: each include
    folder (relative to ``root``) with its real path."""
    found = []
    for number in range(start + 1, end):
        line = page.lines[number]
        if not line.strip():
            continue
        match = INCLUDE.match(line)
        if match is None:
            return None
        found.append(_resolve(page, number + 1, match.group("target"), root, folders))
    return tuple(found) or None


def _resolve(page: Page, line: int, target: str, root: str, folders: dict[str, str]) -> Include:
    """The include line ``line`` naming ``target``, with the file it names (each problem found is
    added to ``page.problems``)."""
    found = resolve(target, root, folders)
    if found.reason:
        page.problems.append(Problem(page.name, line, found.reason))
    return Include(line, target, found.file, found.section)


def _with_figures(fences: list[Fence]) -> list[Fence]:
    """Mark on each running fence the snippets whose figure follows it: those it is the last to include."""
    last = {}
    for number, fence in enumerate(fences):
        if fence.runs:
            for include in fence.includes:
                last[include.file] = number
    return [dataclasses.replace(f, figured=tuple(dict.fromkeys(i.file for i in f.includes if last.get(i.file) == n))
                                if f.runs else ()) for n, f in enumerate(fences)]


def _fences(lines: list[str]):
    """Yield ``(start, end, indent, info words)`` for every fenced block (an unclosed one runs to the end)."""
    index = 0
    while index < len(lines):
        opening = _FENCE_OPEN.match(lines[index])
        if not opening:
            index += 1
            continue
        start, indent, fence = index, opening.group("indent"), opening.group("fence")
        close = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = start + 1
        while end < len(lines) and not close.match(lines[end]):
            end += 1
        index = end + 1
        yield start, min(end, len(lines) - 1), indent, opening.group("info").split()


def fence_mark(text: str) -> str:
    """A Markdown code fence for ``text``: backticks, at least three, more than any run in it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)
