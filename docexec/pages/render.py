"""What an include shows, in one place: its output and its figures, for the page and the notebook.

``include_output`` gives an include fence's output (as text for the page, as chunks per include for the
notebook) and its figures; ``output_html``, ``figure_html`` and ``note_html`` turn them into the
HTML a page shows, ``notebook_nav_html`` the links on top of a notebook's page. Nothing here runs
or draws: the caller passes the results and the drawings.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path

from docexec.core.records import Chunk
from docexec.pages.drift_page import Note, NotePart
from docexec.run.results import Results
from docexec.source.includes import Fence, fence_mark


@dataclass(frozen=True)
class Figure:
    """A snippet's graph as a figure: its DOT source, its text alternative and its caption (HTML)."""

    name: str  # the snippet path, e.g. snippets/ch/x.py
    dot: str
    alt: str
    caption: str


@dataclass(frozen=True)
class IncludeCell:
    """What one include of a fence wrote: its target and the chunks of its lines (``Results.streams``)."""

    target: str
    chunks: tuple[Chunk, ...]

    @property
    def text(self) -> str:
        """Its output as printed but for the line breaks it ended with."""
        return "".join(chunk.text for chunk in self.chunks).rstrip("\n")


@dataclass(frozen=True)
class IncludeOutput:
    """What follows an include fence: per include, what it wrote (``cells``), and the graphs of the
    snippets whose last include on the page this fence is (``figures``)."""

    cells: tuple[IncludeCell, ...]
    figures: tuple[Figure, ...]

    @property
    def text(self) -> str:
        """The output block's text: every include's output, one after the other, each as printed
        but for the line breaks it ended with (an output that starts with blank lines keeps them)."""
        return "\n".join(cell.text for cell in self.cells if cell.text)


def include_output(results: Results, fence: Fence) -> IncludeOutput:
    """The output and figures of a running fence (``Fence.runs``) from this build's results.

    Raises:
        UnknownTargetError: an include names a snippet without a result or a section it does not mark.
    """
    cells = tuple(IncludeCell(include.target, tuple(results.streams(include.target))) for include in fence.includes)
    figures = []
    for path in fence.figured:
        result = results.runs.get(path)
        if result is not None and result.ok and result.graph:
            graph = result.graph
            figures.append(Figure(path, graph.dot, _alt(graph.alt), graph.caption or _caption(path)))
    return IncludeOutput(cells, tuple(figures))


#: Characters of a figure's text alternative (a screen reader reads all of it).
MAX_ALT = 600


def _alt(words: str) -> str:
    text = f"Autograd graph: {words}" if words else "Autograd graph"
    return text if len(text) <= MAX_ALT else text[: MAX_ALT - 1].rstrip() + "…"


def _caption(path: str) -> str:
    return (f"The autograd graph that <code>{escape(Path(path).name)}</code> left behind, drawn from this "
            "build's run. Arrows follow the forward pass; <code>backward()</code> walks them in reverse.")


def output_markdown(text: str, indent: str = "") -> list[str]:
    """An output block as Markdown lines: a ``text`` fence titled "Output" holding ``text``, its
    fence longer than any run of backticks in it, each line indented by ``indent``."""
    fence = fence_mark(text)
    body = [indent + line if line else "" for line in text.split("\n")]
    return ["", f'{indent}{fence} text title="Output"', *body, f"{indent}{fence}", ""]


def output_html(text: str) -> str:
    """The output block of ``text`` as the theme shows a ``text`` fence titled "Output" (the HTML
    that ``pymdownx.highlight`` and ``pymdownx.superfences`` make of ``output_markdown(text)``),
    holding ``text`` exactly as printed, so that the copy button copies what the run printed: tabs,
    lines of blanks and leading blank lines are kept (a fence through Python-Markdown and Pygments
    expands tabs, empties lines of blanks and strips blank lines at either end). Only what no page
    can hold is changed: line breaks become ``\n`` (as an HTML parser makes them), the two control
    characters Python-Markdown marks stashed text with are dropped, and ``&``, ``<``, ``>`` are
    escaped. ``tests/test_markdown_ext.py`` compares the frame with the libraries' and the text
    with the run's.
    """
    body = text.replace("\x02", "").replace("\x03", "").replace("\r\n", "\n").replace("\r", "\n")
    body = body if body.endswith("\n") else body + "\n"
    return ('<div class="highlight"><span class="filename">Output</span><pre><span></span><code>'
            f"{escape(body, quote=False)}</code></pre></div>")


def labelled(svg: str, alt: str) -> str:
    """``svg`` (an ``<svg>`` element) as an image whose text alternative is ``alt``."""
    return svg.replace("<svg ", f'<svg role="img" aria-label="{escape(alt, quote=True)}" ', 1)


#: The attribute that keeps an element out of the search index: Material's search plugin skips an
#: element that carries it, then removes it from the page (the form attr_list's
#: ``{ data-search-exclude }`` writes). Captions (and what stands for a figure drawn already),
#: answers and version notes carry it.
NOT_SEARCHED_NAME = "data-search-exclude"
NOT_SEARCHED = f'{NOT_SEARCHED_NAME}="{NOT_SEARCHED_NAME}"'


def figure_html(drawing: str, caption: str, anchor: str = "") -> str:
    """A figure: ``drawing`` (a ``labelled`` SVG element, or a place for one), ``caption`` (HTML)
    under it, not searched, and the ``id`` ``anchor`` if given (for a link to it)."""
    caption_html = f"<figcaption {NOT_SEARCHED}>{caption}</figcaption>" if caption else ""
    at = f' id="{anchor}"' if anchor else ""
    return f'<figure class="docexec-figure"{at}>\n{drawing}\n{caption_html}</figure>'


def drift_at_html(note: Note) -> str:
    """What stands before an output that another PyTorch prints differently: an empty element with
    the note's id, which the page's version note (``drift_summary_html``) and the page "What
    changes in PyTorch <version>" link to."""
    return f'<span class="docexec-drift-at" id="{note.id}"></span>'


def drift_summary_html(notes: list[Note]) -> str:
    """A page's one version note (``docexec.pages.drift_page.page_notes``), folded: how many of its
    outputs another PyTorch prints differently, and, opened, what each does there; outputs that
    show the same change are listed together and the change shown once."""
    groups: dict[tuple, list[tuple[str, NotePart]]] = {}
    for note in notes:
        for part in note.parts:
            groups.setdefault(part.shows, []).append((note.id, part))
    torch = escape(notes[0].torch)
    count = f"{len(notes)} output on this page differs" if len(notes) == 1 else \
        f"{len(notes)} outputs on this page differ"
    body = [_drift_group(group) for group in groups.values()]
    return (f'<details class="info docexec-drift" {NOT_SEARCHED}>\n<summary>On PyTorch {torch}, {count}</summary>\n'
            + "\n".join(body) + "\n</details>")


def _drift_group(group: list[tuple[str, NotePart]]) -> str:
    """The outputs of ``group`` (each linked to where it is) and what they all do differently."""
    links = ", ".join(f'<a href="#{at}"><code>{escape(part.target.rpartition("/")[2])}</code></a>'
                      for at, part in group)
    part = group[0][1]
    if part.moved:
        return (f"<p>{links}: only a line number in {'its' if len(group) == 1 else 'their'} warning changes, "
                f"<code>{escape(part.moved.file)}</code> line {part.moved.before} becomes {part.moved.after}.</p>")
    one = len(group) == 1
    said = []
    if part.added:
        said.append(f"<p>{links} print{'s' * one}:</p>\n<pre><code>{escape(part.added)}\n</code></pre>")
    if part.removed:
        said.append(f"<p>{links} no longer print{'s' * one}:</p>\n<pre><code>{escape(part.removed)}\n</code></pre>")
    if part.failure:
        said.append(f"<p>The run of {links} fails: <code>{escape(part.failure)}</code></p>")
    if part.figure:
        said.append(f"<p>{links} draw{'s' * one} a different graph.</p>")
    return "\n".join(said)


def same_figure_html(name: str, anchor: str, first: str) -> str:
    """What stands instead of a figure the page shows already: where it is."""
    return (f'<p class="docexec-same-figure" {NOT_SEARCHED}>The graph behind the tensors of '
            f'<code>{escape(Path(name).name)}</code> is the one drawn above for '
            f'<a href="#{anchor}"><code>{escape(Path(first).name)}</code></a>.</p>')


def legend_html(drawing: str) -> str:
    """The key to the figures, folded (one click away), as the first thing before a page's first figure."""
    return ('<details class="docexec-key"><summary>Key to the figures: what each box, line and mark means'
            f"</summary>\n{drawing}\n</details>")


def slug(name: str) -> str:
    """The id prefix of a figure drawn for ``name`` (a snippet or DOT path): its letters and digits,
    for a reader of the address, and a short hash of the name itself, because letters and digits
    alone read alike for ``a-b.py`` and ``a_b.py``, ``é.py`` and ``è.py``, ``a/b_c.py`` and ``a-b/c.py``."""
    readable = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return f"fig-{readable}-{hashlib.sha256(name.encode('utf-8')).hexdigest()[:6]}"


#: Reading speed used for the estimate under each chapter title (words per minute); code counts
#: at half speed. 200 wpm is a common figure for technical prose.
WORDS_PER_MINUTE = 200


def reading_minutes(prose_lines: list[str], code: str) -> int:
    """Minutes to read a page: its prose words plus half its code words, at ``WORDS_PER_MINUTE``."""
    words = len(re.findall(r"[A-Za-z0-9_]+", "\n".join(prose_lines)))
    words += len(re.findall(r"[A-Za-z0-9_]+", code)) / 2
    return max(1, round(words / WORDS_PER_MINUTE))


def note_html(versions: dict[str, str], minutes: int, extra: str = "") -> str:
    """The line under a chapter's title: reading time and which PyTorch and Python produced its
    outputs ("" without versions, when nothing ran), then ``extra`` (HTML, such as notebook links)."""
    note = ""
    if versions:
        note = (f'<p class="docexec-versions">{minutes} min read · Every output on this page was produced when '
                f'the page was built, by PyTorch {versions.get("torch", "?")} '
                f'on Python {versions.get("python", "?")}.</p>')
    if not extra:
        return note
    return f"{note}\n\n{extra}\n" if note else f"{extra}\n"


def notebook_nav_html(title: str, chapter: str, download: str, colab: str = "") -> str:
    """The line at the top of a chapter notebook's page: a link back to the chapter (``title``, its
    Markdown title, at the address ``chapter``), a button that downloads the notebook (from ``download``) and, given
    ``colab``, one that opens it in Colab."""
    opens = f' <a class="md-button" href="{escape(colab)}">Open in Colab</a>' if colab else ""
    label = re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(title))  # the title's inline code, as on the chapter
    return (f'<p class="docexec-notebook-nav"><a href="{escape(chapter)}">← Back to the chapter: {label}</a>'
            f' <a class="md-button" href="{escape(download)}" download>Download this notebook (.ipynb)</a>{opens}</p>')


@functools.lru_cache(maxsize=8)
def _code_pattern(terms: tuple[str, ...]) -> re.Pattern:
    """What ``abbreviate_code`` looks for: a ``<code>`` element whose whole text is one of ``terms``
    (made once per set of terms: a build abbreviates every page, heading and output with the same)."""
    # Starting with a literal lets the regular expression engine skip ahead to each "<code>";
    # a look-behind for "<pre>" in front of it would make it try every position of the page.
    return re.compile(r"<code>(" + "|".join(re.escape(escape(t)) for t in terms) + r")</code>")


def abbreviate_code(html: str, terms: dict[str, str]) -> str:
    """Wrap each ``<code>`` element of ``html`` whose whole text is a key of ``terms`` (term ->
    its title) in ``<abbr title="...">``, except the text of a ``<pre><code>`` block."""
    if not terms or "<code>" not in html:
        return html
    pattern = _code_pattern(tuple(terms))

    def wrap(match: re.Match) -> str:
        if match.start() >= 5 and html.startswith("<pre>", match.start() - 5):  # a code block's text
            return match.group(0)
        title = escape(terms[unescape(match.group(1))], quote=True)
        return f'<abbr title="{title}">{match.group(0)}</abbr>'

    return pattern.sub(wrap, html)
