"""A chapter as a Jupyter notebook, made from the same page record and results as the page.

The page's prose becomes Markdown cells and each snippet include a code cell whose outputs are what the snippet
printed in this build (stdout and stderr streams, addresses shown as ``0x…``: the same pieces the page shows,
``docexec.pages.render.include_output``); the graph figures that follow a fence on the page follow its last cell, as
SVG images. Material-only syntax is turned into plain Markdown that Jupyter renders: admonitions become a bold title
over their text, reference-style links are inlined (Jupyter resolves them only within one cell), links to other
pages point to the published site, and concept diagrams become SVG attachments.

The result is an ``nbformat`` 4.5 notebook as a ``dict`` (https://nbformat.readthedocs.io/en/latest/format_description.html);
``dumps`` gives its JSON text, the same bytes for the same inputs. Its title is the chapter's with "(notebook)"
after it, its first note links to the chapter, and its code cells are numbered as a kernel running it from the top
numbers them. ``docexec.notebooks.convert.inline_figures`` puts the figures of the notebook's page (which nbconvert
shows as images) in as inline SVG, as on the chapter's page.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from docexec.core.records import encode
from docexec.graphs.figures import Drawings
from docexec.notebooks.convert import FOLDED_TAG
from docexec.pages import quoted
from docexec.pages.render import include_output, labelled
from docexec.run.results import Results
from docexec.source.claims import hidden
from docexec.source.config import published
from docexec.source.includes import Fence, Page, fence_mark
from docexec.source.quotes import replace_quotes, without_literal_notes
from docexec.source.snippets import included_text

_ADMONITION = re.compile(r'^(?P<indent>[ \t]*)(?P<kind>!!!|\?\?\?\+?)[ \t]+\w+(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$')
_REF_DEF = re.compile(r"^\[(?P<ref>[^\]]+)\]:[ \t]+(?P<url><?\S+?>?)[ \t]*$")
_REF_USE = re.compile(r"\[(?P<text>[^\]]+)\]\[(?P<ref>[^\]]*)\]")
_PAGE_LINK = re.compile(r"\]\((?P<page>[\w./-]+)\.md(?P<anchor>#[\w-]+)?\)")


class _Prose:
    """Turns a page's prose lines into plain Jupyter Markdown, line by line, in order."""

    def __init__(self, page: Page, site_url: str):
        self.refs = {}
        for number, line in enumerate(page.lines):
            match = _REF_DEF.match(line) if number not in page.fenced else None
            if match:
                self.refs[match.group("ref").lower()] = match.group("url").strip("<>")
        self.base = _site_base(site_url)
        self.inside: int | None = None  # the indentation of the admonition's text, inside one
        self.folded = False  # the admonition is a folded one (``???``), open in the notebook as <details>

    def line(self, line: str, fenced: bool) -> str | None:
        """The line as Jupyter Markdown, or None for a line that goes (a reference definition)."""
        if not fenced:
            if _REF_DEF.match(line) or _MARKER.match(line):
                return None
            line = _PAGE_LINK.sub(lambda m: f"]({self.base}{m.group('page')}/{m.group('anchor') or ''})", line)
            match = _ADMONITION.match(line)
            if match:
                self.inside = len(match.group("indent")) + 4
                title = match.group("title") or "Note"
                if match.group("kind") == "!!!":
                    return f"**{title}**"
                self.folded = True  # folded on the page, so in the notebook (Jupyter and Colab show <details>)
                return f"<details{' open' if match.group('kind') == '???+' else ''}><summary><b>{title}</b></summary>\n"
        return line[self.inside:] if self.inside is not None and line.startswith(" " * self.inside) else line

    @property
    def in_folded(self) -> bool:
        """Whether the line reached is inside a folded admonition (an exercise's answer)."""
        return self.inside is not None and self.folded

    def leave(self, line: str | None) -> str | None:
        """Leave the admonition if ``line`` (None: the page's end) is not inside it; returns the
        HTML that closes a folded one, if one is closed."""
        if self.inside is None or (line is not None and (not line.strip()
                                                         or len(line) - len(line.lstrip()) >= self.inside)):
            return None
        self.inside = None
        folded, self.folded = self.folded, False
        return "\n</details>\n" if folded else None

    def links(self, text: str) -> str:
        """``text`` with its reference-style links inlined, outside its code fences (code such as
        ``n[0][1:]`` is left as it is)."""
        pieces, last = [], 0
        for block in _FENCE_BLOCK.finditer(text):
            pieces += [_REF_USE.sub(self._use, text[last:block.start()]), block.group(0)]
            last = block.end()
        return "".join(pieces) + _REF_USE.sub(self._use, text[last:])

    def _use(self, match: re.Match) -> str:
        ref = (match.group("ref") or match.group("text")).lower()
        return f"[{match.group('text')}]({self.refs[ref]})" if ref in self.refs else match.group(0)


class _Cells:
    """The notebook's cells as they are made: prose gathers until the next code cell."""

    def __init__(self, prose: _Prose):
        self.to_markdown = prose.links
        self.drawing = False  # the drawing function's cell is in (_drawing_cell)
        self.cells: list[dict] = []
        self.prose: list[str] = []
        self.attachments: dict = {}
        self.count = 0  # code cells so far

    def flush(self) -> None:
        body = self.to_markdown("\n".join(self.prose).strip("\n"))
        if body:
            cell = {"cell_type": "markdown", "id": f"cell-{len(self.cells)}", "metadata": {}, "source": body}
            if self.attachments:
                cell["attachments"] = dict(self.attachments)
            self.cells.append(cell)
        self.prose.clear()
        self.attachments.clear()

    def code(self, source: str, outputs: list[dict], exercise: bool = False, metadata: dict | None = None) -> None:
        """A code cell; cells are numbered 1, 2, ... as a kernel running the notebook from the top
        numbers them (``tests/test_notebooks.py`` runs it so and compares the outputs). An
        exercise's cell is left unrun (no number, no output) and tagged ``exercise``."""
        self.flush()
        self.count += 1
        self.cells.append({"cell_type": "code", "id": f"cell-{len(self.cells)}",
                           "metadata": {"tags": ["exercise"]} if exercise else (metadata or {}),
                           "execution_count": None if exercise else self.count,
                           "source": source, "outputs": outputs})


def _diagram_cell(diagram, results: Results, drawings: Drawings, cells: _Cells) -> None:
    """A page's committed diagram (a DOT file), drawn and attached to the prose cell, with its caption."""
    svg = drawings.svg((results.root / diagram.path).read_text(encoding="utf-8"), "nb")
    name = Path(diagram.path).with_suffix(".svg").name
    cells.attachments[name] = {"image/svg+xml": base64.b64encode(svg.encode()).decode()}
    cells.prose.append(f"![{diagram.alt}](attachment:{name})")
    if diagram.caption:
        cells.prose.append(f"\n*{diagram.caption}*")


def chapter_notebook(page: Page, results: Results, drawings: Drawings, site_url: str = "",
                     colab: bool = False) -> dict:
    """Build the notebook of one chapter page.

    Args:
        page: the page's record (``docexec.host.build.Build.page``).
        results: this build's results; those of the page's snippets must be in.
        drawings: the build's drawings (figures are drawn with them).
        site_url: the site's address; links to other pages are made absolute with it, or relative
            to the notebook's page when it is empty or local (``published``).
        colab: say under the title that the notebook carries no outputs (``colab_notebook``).

    Returns:
        The notebook as a ``dict`` in nbformat 4.5.

    Raises:
        GraphvizError: a graph could not be drawn.
        UnknownTargetError: an include names a snippet without a result.
    """
    fences = {fence.start: fence for fence in page.fences}
    answers = {fence.answer: fence for fence in page.fences if fence.answer is not None}
    drawings.draw_many([results.runs[p].graph.dot for p in page.snippets
                        if p in results.runs and results.runs[p].graph])  # in parallel, first
    diagrams = {diagram.index: diagram for diagram in page.diagrams}
    prose = _Prose(page, site_url)
    cells = _Cells(prose)
    quoting = _quoting(page, results)
    index = 0
    while index <= len(page.lines):
        closing = prose.leave(page.lines[index] if index < len(page.lines) else None)
        if closing:
            cells.prose.append(closing)
        if index == len(page.lines):
            break
        if index in fences and prose.in_folded and fences[index].answer is None:
            _folded_fence(fences[index], results, drawings, cells)
            index = fences[index].end + 1
            continue
        if index in fences:
            _fence_cells(fences[index], results, drawings, cells)
            index = fences[index].end + 1
            continue
        if index in answers:
            _answer_cell(answers[index], results, drawings, cells)
            index += 1
            continue
        if index in diagrams:
            _diagram_cell(diagrams[index], results, drawings, cells)
        else:
            fenced = index in page.fenced
            text = quoting.get(index, page.lines[index])
            shown = text if fenced else without_literal_notes(text)
            line = prose.line(shown, fenced) if shown.strip() or not text.strip() else None  # a note alone goes
            if line is not None:
                cells.prose.append(f"{line} {NOTEBOOK_TITLE}" if index == page.title else line)
        if index == page.title and results.versions():
            versions = results.versions()
            chapter = _chapter_link(page, site_url)
            cells.prose.append(
                f"\n*This notebook is the site's page {chapter} without its outputs: run it. The site's outputs "
                f"come from PyTorch {versions.get('torch')} on Python {versions.get('python')}; Colab may run "
                "another PyTorch, whose outputs may differ.*" if colab else
                f"\n*This notebook was generated from the site's page {chapter} and run with "
                f"PyTorch {versions.get('torch')} on Python {versions.get('python')}; the outputs "
                "below are that run's. Each example's cell runs on its own; a figure cell draws what the "
                "example above it left, with the drawing function that the folded cell before the first "
                "figure defines.*")
        index += 1
    cells.flush()
    return {
        "cells": cells.cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def notebook_key(page: Page, results: Results, site_url: str = "") -> str:
    """A digest of everything ``chapter_notebook(page, results, ..., site_url)`` reads: docexec's
    code, torch and Python (``cache.environment``), the page's text, the text of each snippet as
    its run read it, the bytes of every other file its fences include and of every diagram it
    shows, each of its snippets' results (but whether it came from the cache and how long it
    took), the versions and ``site_url``. A warm build whose key
    matches the one stored with the notebook reuses the notebook as it is instead of making it again.
    Figures are drawn from DOT text, which the results and diagram files carry."""
    from docexec.run.cache import environment

    digest = hashlib.sha256(environment().encode())
    digest.update(json.dumps([page.name, page.lines, site_url, results.versions()]).encode())
    files = {include.file for fence in page.fences for include in fence.includes if include.file}
    ran = set(page.snippets)
    shown = {include.file for fence in page.fences if not fence.runs for include in fence.includes}
    for path in sorted(files | {diagram.path for diagram in page.diagrams}):
        # a snippet's code cells show its text as its run read it (``Results.source``): not read
        # again; a fence that does not run shows the file as it is now
        known = results.sources.get(path) if path in ran else None
        data = known.encode() if known is not None else b""
        if known is None or path in shown:
            data += b"\0" + (results.root / path).read_bytes()
        digest.update(path.encode() + b"\0" + data + b"\0")
    for path in page.snippets:
        result = results.runs.get(path)
        fields = encode(result, leave_out=_UNSHOWN) if result else None
        digest.update(json.dumps(fields, sort_keys=True).encode() + b"\0")
    return digest.hexdigest()


#: What a notebook does not show of a result (``notebook_key`` leaves it out).
_UNSHOWN = frozenset({"cached", "seconds", "own_seconds"})


#: What a notebook's title adds to its chapter's, so that the notebook's page is told from the chapter.
NOTEBOOK_TITLE = "(notebook)"


def title_of(page: Page) -> str:
    """The text of a page's ``# `` title ("" without one)."""
    return page.lines[page.title].lstrip("#").strip() if page.title is not None else ""


def _site_base(site_url: str) -> str:
    """Where links to the site's pages start: its published address (``published``), or, without
    one, the site's root relative to the notebook's own page (``notebooks/<page>/``)."""
    return published(site_url) or "../../"


def _chapter_link(page: Page, site_url: str) -> str:
    """A Markdown link to the chapter (``_site_base``)."""
    return f"[{title_of(page)}]({_site_base(site_url)}{Path(page.name).stem}/)"


def _quoting(page: Page, results: Results) -> dict[int, str]:
    """The lines of ``page`` that quote values of the runs (0-based), with the values put in as
    Markdown (a quote that names no value stays as written: the build reports it)."""
    by_line: dict[int, list] = {}
    for quote in page.quotes:
        by_line.setdefault(quote.line - 1, []).append(quote)
    lines = {}
    for index, quotes in by_line.items():
        shown = []
        for quote in quotes:
            try:
                shown.append(quoted.markdown(quoted.value(quote, results), page.lines[index].lstrip().startswith("|")))
            except quoted.QuoteError:
                shown.append(page.lines[index][quote.start:quote.end])
        line = replace_quotes(page.lines[index], quotes, shown)
        if not page.lines[index][:quotes[0].start].strip():  # a value that opens the line must not open a list
            line = re.sub(r"^(\s*[-+]?\d+)([.)])(\s|$)", r"\1\\\2\3", line)
        lines[index] = line
    return lines


def _fence_cells(fence: Fence, results: Results, drawings: Drawings, cells: _Cells) -> None:
    """One code cell per include of ``fence``: with this build's output if the fence runs, else the
    code alone (an exercise's output waits for its answer, ``_answer_cell``); then a cell that draws
    each figure that follows the fence on the page (``_figure_cell``)."""
    if not fence.runs:
        code = "\n\n".join(included_text((results.root / i.file).read_text(encoding="utf-8"), i.section)
                           for i in fence.includes)
        cells.code(code, [])
        return
    out = include_output(results, fence)
    for include, cell in zip(fence.includes, out.cells, strict=True):
        code = included_text(results.source(include.file), include.section)
        if fence.answer is not None:  # an exercise: its claims hidden, its output in its answer
            cells.code(hidden(code), [], exercise=True)
            continue
        cells.code(code, [{"output_type": "stream", "name": c.stream, "text": c.text} for c in cell.chunks])
    if fence.answer is None:
        for figure in out.figures:
            _figure_cell(figure, drawings, cells)


def _drawing_cell(cells: _Cells) -> None:
    """Once per notebook, before its first figure cell: the drawing function shown on chapter 01
    (``docexec/graphs/graph.py``'s ``to_dot`` section) and the graphviz package that shows its DOT text."""
    if cells.drawing:
        return
    cells.drawing = True
    from docexec.graphs import graph

    source = included_text(Path(graph.__file__).read_text(encoding="utf-8"), "to_dot")
    cells.code(f"#@title {DRAWING_TITLE}\n"
               "# Chapter 01 shows and explains it. It needs the graphviz package\n"
               "# (pip install graphviz) and Graphviz itself.\n"
               f"import graphviz\n\n{source}", [], metadata=FOLDED)


#: The title of the drawing function's cell (Colab's ``#@title``; the summary of the folded cell).
DRAWING_TITLE = "The drawing function to_dot() that the figure cells use (run it; reading it is optional)"
#: The metadata of a cell shown folded: JupyterLab and Notebook 7 hide its source, Colab shows its
#: form (the ``#@title`` line), and the notebook's page shows it folded (``convert.fold_cells``).
FOLDED = {"tags": [FOLDED_TAG], "jupyter": {"source_hidden": True}, "cellView": "form"}


def _figure_cell(figure, drawings: Drawings, cells: _Cells) -> None:
    """A cell that draws an example's graph from the reader's own run (``to_dot`` and the graphviz
    package, which Colab has), holding this build's drawing as its output."""
    names = re.findall(r'^  t\d+ \[label="([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\\n', figure.dot, re.M)  # or draw=
    if not names:
        return
    _drawing_cell(cells)
    tensors = ", ".join(f'"{name}": {name}' for name in names)
    code = (f"# The graph this example left, drawn from your own run. Below: this build's drawing,\n"
            f"# with what its run recorded (see the page).\ngraphviz.Source(to_dot({{{tensors}}}))")
    cells.code(code, [{"output_type": "display_data", "metadata": {},
                       "data": {"image/svg+xml": labelled(drawings.svg(figure.dot, "nb"), figure.alt),
                                "text/plain": figure.alt}}])


def _answer_cell(fence: Fence, results: Results, drawings: Drawings, cells: _Cells) -> None:
    """Where an exercise's answer is: what it printed in this build, and its figure, as Markdown."""
    _printed_as_markdown(include_output(results, fence), drawings, cells)


def _folded_fence(fence: Fence, results: Results, drawings: Drawings, cells: _Cells) -> None:
    """An example inside a folded answer (a "find the bug" exercise's fixed program): its code and
    what it printed, as Markdown inside the answer's <details>, which a code cell would break open
    (the fix would show before the answer is opened)."""
    def source(file: str) -> str:
        return results.source(file) if fence.runs else (results.root / file).read_text(encoding="utf-8")

    code = "\n\n".join(included_text(source(i.file), i.section) for i in fence.includes)
    cells.prose.append(f"\n{_fenced(code, 'python')}\n")
    if fence.runs:
        _printed_as_markdown(include_output(results, fence), drawings, cells)


def _fenced(text: str, language: str) -> str:
    """``text`` in a Markdown code fence longer than any run of backticks in it."""
    mark = fence_mark(text)
    return f"{mark}{language}\n{text}\n{mark}"


def _printed_as_markdown(out, drawings: Drawings, cells: _Cells) -> None:
    """What a run printed in this build, and its figures, as Markdown (answers are not run)."""
    if out.text:
        cells.prose.append(f"*What it printed in this build:*\n\n{_fenced(out.text, 'text')}")
    for figure in out.figures:
        name = f"{figure.name.rpartition('/')[2]}.svg"
        svg = labelled(drawings.svg(figure.dot, "nb"), figure.alt)
        cells.attachments[name] = {"image/svg+xml": base64.b64encode(svg.encode()).decode()}
        cells.prose.append(f"\n![{figure.alt}](attachment:{name})")


def dumps(notebook: dict) -> str:
    """The notebook as JSON text (sorted keys, one-space indent, as Jupyter writes it)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


#: A fenced code block of a notebook's Markdown (an answer's output or fixed program).
_FENCE_BLOCK = re.compile(r"^(?P<mark>`{3,})[^\n]*\n.*?^(?P=mark)[ \t]*$", re.M | re.S)
#: A line of the page that is there for the build only (``<!-- docexec: exercise -->``, ``show``).
_MARKER = re.compile(r"^[ \t]*<!--[ \t]*docexec:.*-->[ \t]*$")
