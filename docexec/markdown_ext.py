"""A Python-Markdown extension that shows each included snippet's output right under its code.

A page includes a snippet the usual ``pymdownx.snippets`` way, in a plain ``python`` fence::

    ```python
    --8<-- "computational-graph/opt_in.py"
    ```

and this extension adds, after that fence, a block titled "Output" holding what that snippet (or
that section of it) wrote when it ran in this build. Pages need no other syntax, so they still read
well on GitHub and in any tool that knows ``pymdownx.snippets``. The block is the HTML that
``pymdownx.highlight`` makes of a ``text`` fence with that title (the same classes and title, so
the theme styles it and gives it a copy button), written directly: output needs no highlighting,
and a Pygments pass costs more than the rest of showing a cached snippet.

It also puts one line under the page title saying which PyTorch and Python produced the outputs,
read from the run itself.

The extension depends on Python-Markdown only (not on MkDocs), so any generator that runs
Markdown extensions can use it. Register it after nothing in particular: its preprocessor runs
before ``pymdownx.snippets`` (priority 32) so that it still sees the include lines.

Options:
    root: the repository root (default: the current directory).
    base_path: the folder includes are relative to, relative to ``root`` (default ``snippets``);
        the same folder as ``pymdownx.snippets``' ``base_path``.
    versions_note: put the "outputs produced by" line under the title (default True).
    start_early: when the extension is first set up in a process (MkDocs does that while it
        validates ``mkdocs.yml``, before it imports its plugins), start the snippet worker if
        some snippet will have to run, so that its torch import overlaps the generator's own
        start-up (default False; see ``Session.prestart``). Needs ``root``.
    defer: leave a place (an HTML comment) for each output block with its figures, and for the
        note under the title, instead of waiting for the snippets' results; ``fill`` puts them in
        the converted page later. A caller that started the run with ``Session.start`` can so
        convert its pages while the snippets run (the MkDocs hook does). Default False.
"""

from __future__ import annotations

import re
import uuid
from html import escape, unescape
from pathlib import Path

from markdown import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from . import figures
from .session import get_session
from .snippets import INCLUDE, split_target

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_TITLE = re.compile(r"^#[ \t]+\S")
# A concept diagram: an image line whose target is a hand-written DOT file under diagrams/.
_DIAGRAM = re.compile(r'^(?P<indent>[ \t]*)!\[(?P<alt>[^\]]+)\]\((?P<path>diagrams/[^)\s]+\.dot)(?:[ \t]+"(?P<caption>[^"]*)")?\)[ \t]*$')


class SnippetOutputPreprocessor(Preprocessor):
    """Inserts an output block after every fence that only includes snippets."""

    def __init__(self, md, root: Path, base_path: str, versions_note: bool, defer: bool = False):
        super().__init__(md)
        self.root = root
        self.base_path = base_path
        self.versions_note = versions_note
        self.defer = defer
        self.marker = "docexec-block-" + uuid.uuid4().hex + "-"
        self.pending: list[str] = []  # HTML of each marker line left in the page
        self.deferred: list[dict] = []  # the places left for fill() in this conversion
        self.as_markdown: dict[int, list[str]] = {}  # marker number -> its output block as Markdown lines

    def run(self, lines: list[str]) -> list[str]:
        self.pending = []
        self.as_markdown = {}
        self.deferred = []  # the places left in this conversion (``defer``); see CodeAbbreviationPostprocessor
        session = get_session(self.root, self.base_path)
        fences = list(self._include_fences(lines))
        last_fence_of = {}
        for number, (_, _, _, targets) in enumerate(fences):
            for target in targets:
                last_fence_of[split_target(target)[0]] = number
        by_end = {end: (number, indent, targets) for number, (_, end, indent, targets) in enumerate(fences)}
        fenced = fenced_lines(lines)
        out: list[str] = []
        for index, line in enumerate(lines):
            diagram = _DIAGRAM.match(line)
            if diagram and index not in fenced:
                out.extend(self._concept_figure(diagram))
                continue
            out.append(line)
            if index not in by_end:
                continue
            number, indent, targets = by_end[index]
            figured = [split_target(t)[0] for t in targets if last_fence_of[split_target(t)[0]] == number]
            if self.defer:
                out.extend(self._stash(self._defer(session, {"targets": targets, "figured": figured}), indent))
                continue
            text = "\n".join(session.output(t) for t in targets).strip("\n")
            blocks = output_blocks(session, text, figured)  # what follows the fence: one stashed block
            if blocks:
                out.extend(self._stash(blocks, indent))
            if text:
                self.as_markdown[len(self.pending) - 1] = output_markdown(text, indent)
        if fences and self.versions_note:
            code = " ".join(session.source(f"{self.base_path}/{split_target(t)[0]}")
                            for _, _, _, targets in fences for t in targets)
            minutes = reading_minutes([lines[i] for i in range(len(lines)) if i not in fenced], code)
            if self.defer:
                out = _insert_under_title(out, self._defer(session, {"minutes": minutes}))
            else:
                out = _add_versions_note(out, session.versions(), minutes)
        return out

    def _defer(self, session, place: dict) -> str:
        """Leave ``place`` for ``fill``: kept in ``session.deferred``, named by an HTML comment."""
        self.deferred.append(place)
        number = len(session.deferred)
        session.deferred[number] = place
        return f"<!--docexec-deferred-{_DEFER_TOKEN}-{number}-->"

    def _include_fences(self, lines: list[str]):
        return include_fences(lines, self.root, self.base_path)

    def _stash(self, html: str, indent: str) -> list[str]:
        # Python-Markdown's whitespace normalizer (priority 30) strips stash placeholders, so leave a
        # marker line here and let BlockPlaceholderPreprocessor (priority 29) stash the HTML.
        self.pending.append(html)
        return ["", f"{indent}{self.marker}{len(self.pending) - 1}", ""]

    def _concept_figure(self, match: re.Match) -> list[str]:
        path = self.root / match.group("path")
        if not path.is_file():
            raise FileNotFoundError(f"{match.group('path')}: no such diagram (named in a page as an image)")
        svg = figures.render_svg(path.read_text(encoding="utf-8"), _slug(match.group("path")),
                                 self.root / figures.SVG_CACHE)
        caption = escape(match.group("caption") or "")
        return self._stash(_figure(svg, match.group("alt"), caption), match.group("indent"))


def output_blocks(session, text: str, figured: list[str]) -> str:
    """The HTML that follows an include fence: the output block of ``text`` (none if it is empty),
    then the figure of each snippet named in ``figured`` (``<chapter>/<example>.py``) whose run
    left a graph. An empty string if there is neither."""
    blocks = [output_html(text)] if text else []
    for name in figured:
        result = session.results.get(f"{session.folder}/{name}")
        if result is not None and result.graph_dot:
            blocks.append(_snippet_figure(session, name, result))
    return "\n".join(blocks)


def _snippet_figure(session, name: str, result) -> str:
    alt = f"Autograd graph: {result.graph_alt}" if result.graph_alt else "Autograd graph"
    caption = (f"The autograd graph that <code>{escape(Path(name).name)}</code> left behind, drawn from this "
               "build's run. Arrows follow the forward pass; <code>backward()</code> walks them in reverse.")
    svg = figures.render_svg(result.graph_dot, _slug(name), session.root / figures.SVG_CACHE)
    return _figure(svg, alt, caption)


#: Deferred places (``defer`` option) are HTML comments with this process's random token, so that
#: no page text can pass for one; the number indexes ``Session.deferred``.
_DEFER_TOKEN = uuid.uuid4().hex
_DEFERRED = re.compile(rf"<!--docexec-deferred-{_DEFER_TOKEN}-(\d+)-->(\n?)")


def fill(html: str, session) -> str:
    """Put into ``html`` (a page converted with the ``defer`` option) what the session's results
    give for each place left: the output blocks and figures, and the note under the title.

    Waits for the results it needs (``Session.output`` waits for each). A place that turns out empty (a snippet that
    wrote nothing and drew no graph) is removed with the line break after it.

    Raises:
        ExecutionError: as ``Session.wait``.
        KeyError: an include names a section its snippet does not have.
        GraphvizError: a figure could not be drawn (``figures.render_svg``).
    """
    def place(match: re.Match) -> str:
        what = session.deferred[int(match.group(1))]
        if "targets" in what:
            text = "\n".join(session.output(t) for t in what["targets"]).strip("\n")
            # what CodeAbbreviationPostprocessor did to the rest of the page, done to this part
            filled = abbreviate_code(output_blocks(session, text, what["figured"]), what.get("terms", {}))
        else:
            filled = _versions_note(session.versions(), what["minutes"])
        return filled + match.group(2) if filled else ""

    return _DEFERRED.sub(place, html) if "<!--docexec-deferred-" in html else html


class BlockPlaceholderPreprocessor(Preprocessor):
    """Replaces the marker lines ``SnippetOutputPreprocessor`` left for output blocks and figures
    with their HTML, stashed (Python-Markdown passes stashed HTML through unchanged, wherever the
    placeholder ends up: a paragraph of its own, an admonition, a raw HTML block)."""

    def __init__(self, md, outputs: SnippetOutputPreprocessor):
        super().__init__(md)
        self.outputs = outputs
        self.placeholders: set[str] = set()  # the stash placeholders made in this conversion

    def run(self, lines: list[str]) -> list[str]:
        marker = self.outputs.marker
        self.placeholders = set()
        out = []
        for line in lines:
            stripped = line.strip()
            if stripped.startswith(marker):
                placeholder = self.md.htmlStash.store(self.outputs.pending[int(stripped[len(marker):])])
                self.placeholders.add(placeholder)
                line = line[: len(line) - len(line.lstrip())] + placeholder
            out.append(line)
        return out


class AtomicPlaceholderTreeprocessor(Treeprocessor):
    """Makes the text of each paragraph that is only one of ``BlockPlaceholderPreprocessor``'s
    placeholders an ``AtomicString`` (https://python-markdown.github.io/extensions/api/#atomicstring),
    which inline patterns and the ``abbr`` tree processor skip: a placeholder has nothing for them
    to find, and running every inline pattern over one per snippet costs more than the rest of
    showing a cached snippet. Runs before the inline patterns (priority 20)."""

    def __init__(self, md, blocks: BlockPlaceholderPreprocessor):
        super().__init__(md)
        self.blocks = blocks

    def run(self, root) -> None:
        if self.blocks.placeholders:
            for paragraph in root.iter("p"):
                if paragraph.text and paragraph.text.strip() in self.blocks.placeholders:
                    paragraph.text = AtomicString(paragraph.text)


def include_fences(lines: list[str], root: Path, base_path: str):
    """Yield ``(start, end, indent, targets)`` for each python fence that only includes snippets.

    ``start`` and ``end`` are the 0-based lines of the opening and closing fence; ``targets`` the
    include targets (``<chapter>/<example>.py`` or ``...:section``), all files under
    ``root/base_path``. Fences that include anything else are not yielded.
    """
    for start, end, indent, info in _fences(lines):
        matches = [INCLUDE.match(b) for b in lines[start + 1: end] if b.strip()]
        if not info or info[0] not in ("python", "py") or not matches or not all(matches):
            continue
        targets = [m.group("target") for m in matches]
        if all((root / base_path / split_target(t)[0]).is_file() for t in targets):
            yield start, end, indent, targets


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


def fenced_lines(lines: list[str]) -> set[int]:
    """The 0-based numbers of every line inside a fenced block, fences included."""
    return {i for start, end, _, _ in _fences(lines) for i in range(start, end + 1)}


def _figure(svg: str, alt: str, caption: str) -> str:
    svg = svg.replace("<svg ", f'<svg role="img" aria-label="{escape(alt, quote=True)}" ', 1)
    caption_html = f"<figcaption>{caption}</figcaption>" if caption else ""
    return f'<figure class="docexec-figure">\n{svg}\n{caption_html}</figure>'


def _slug(name: str) -> str:
    return "fig-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def output_markdown(text: str, indent: str = "") -> list[str]:
    """An output block as Markdown lines: a ``text`` fence titled "Output" holding ``text``, its
    fence longer than any run of backticks in it, each line indented by ``indent``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = [indent + line if line else "" for line in text.split("\n")]
    return ["", f'{indent}{fence} text title="Output"', *body, f"{indent}{fence}", ""]


def output_html(text: str) -> str:
    """The HTML that Python-Markdown with ``pymdownx.highlight`` and ``pymdownx.superfences`` makes of
    ``output_markdown(text)`` (without line anchors), with no Pygments pass.

    What those steps do to a ``text`` fence's content is done here in the same order: Python-Markdown
    drops the two control characters it marks stashed text with, turns line breaks into ``\\n``,
    expands tabs to its ``tab_length`` of 4 and empties lines of only blanks; Pygments' text lexer
    drops a leading byte-order mark, strips leading and trailing newlines and ends the text with
    one; its HTML formatter escapes ``&``, ``<`` and ``>``. ``tests/test_markdown_ext.py`` compares
    the result with what those libraries make of the fence.
    """
    text = text.replace("\x02", "").replace("\x03", "")  # Python-Markdown's own stash markers
    lines = [line.expandtabs(4) for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    body = "\n".join(line if line.strip(" ") else "" for line in lines)
    body = body.removeprefix("\ufeff").strip("\n") + "\n"  # Pygments drops a leading byte-order mark
    return ('<div class="highlight"><span class="filename">Output</span><pre><span></span><code>'
            f"{escape(body, quote=False)}</code></pre></div>")


#: Reading speed used for the estimate under each chapter title (words per minute); code counts
#: at half speed. 200 wpm is a common figure for technical prose.
WORDS_PER_MINUTE = 200


def reading_minutes(prose_lines: list[str], code: str) -> int:
    """Minutes to read a page: its prose words plus half its code words, at ``WORDS_PER_MINUTE``."""
    words = sum(len(re.findall(r"[A-Za-z0-9_]+", line)) for line in prose_lines)
    words += len(re.findall(r"[A-Za-z0-9_]+", code)) / 2
    return max(1, round(words / WORDS_PER_MINUTE))


def _versions_note(versions: dict[str, str], minutes: int) -> str:
    if not versions:
        return ""
    return (f'<p class="docexec-versions">{minutes} min read · Every output on this page was produced when '
            f'the page was built, by PyTorch {versions.get("torch", "?")} on Python {versions.get("python", "?")}.</p>')


def _add_versions_note(lines: list[str], versions: dict[str, str], minutes: int) -> list[str]:
    note = _versions_note(versions, minutes)
    return _insert_under_title(lines, note) if note else lines


def _insert_under_title(lines: list[str], html: str) -> list[str]:
    for number, line in enumerate(lines):
        if _TITLE.match(line):
            return lines[: number + 1] + ["", html, ""] + lines[number + 1:]
    return ["", html, ""] + lines


class CodeAbbreviationPostprocessor(Postprocessor):
    """Gives an inline code span whose whole text is a defined abbreviation (``grad_fn``) that
    abbreviation's tooltip, as Python-Markdown's ``abbr`` does for plain text (it skips code).

    It works on the finished HTML because ``pymdownx.inlinehilite`` stashes code spans away from
    tree processors.
    """

    def run(self, text: str) -> str:
        abbr = self.md.treeprocessors["abbr"] if "abbr" in self.md.treeprocessors else None
        terms = getattr(abbr, "abbrs", {}) if abbr is not None else {}
        if not terms:
            return text
        outputs = self.md.preprocessors["docexec_output"] if "docexec_output" in self.md.preprocessors else None
        for place in getattr(outputs, "deferred", []):  # filled in later: fill() does the same to them
            place["terms"] = dict(terms)
        return abbreviate_code(text, terms)


def abbreviate_code(html: str, terms: dict[str, str]) -> str:
    """Wrap each ``<code>`` element of ``html`` whose whole text is a key of ``terms`` (term ->
    its title) in ``<abbr title="...">``, except the text of a ``<pre><code>`` block."""
    if not terms:
        return html
    # Starting with a literal lets the regular expression engine skip ahead to each "<code>";
    # a look-behind for "<pre>" in front of it would make it try every position of the page.
    pattern = re.compile(r"<code>(" + "|".join(re.escape(escape(t)) for t in terms) + r")</code>")

    def wrap(match: re.Match) -> str:
        if match.start() >= 5 and html.startswith("<pre>", match.start() - 5):  # a code block's whole text, not a code span
            return match.group(0)
        title = escape(terms[unescape(match.group(1))], quote=True)
        return f'<abbr title="{title}">{match.group(0)}</abbr>'

    return pattern.sub(wrap, html)


class SnippetOutputExtension(Extension):
    """Registers ``SnippetOutputPreprocessor``; see the module docstring for the options."""

    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "repository root"],
            "base_path": ["snippets", "folder that includes are relative to"],
            "versions_note": [True, "add the 'outputs produced by' line under the title"],
            "start_early": [False, "start the snippet worker when the extension is first set up"],
            "defer": [False, "leave places for outputs, figures and the note, filled in later by fill()"],
        }
        super().__init__(**kwargs)
        if self.getConfig("start_early"):
            get_session(Path(self.getConfig("root")).resolve(), self.getConfig("base_path")).prestart(first_run_only=True)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        outputs = SnippetOutputPreprocessor(md, Path(self.getConfig("root")).resolve(), self.getConfig("base_path"),
                                            bool(self.getConfig("versions_note")), bool(self.getConfig("defer")))
        md.preprocessors.register(outputs, "docexec_output", 34)
        blocks = BlockPlaceholderPreprocessor(md, outputs)
        md.preprocessors.register(blocks, "docexec_blocks", 29)
        md.treeprocessors.register(AtomicPlaceholderTreeprocessor(md, blocks), "docexec_atomic", 25)
        md.postprocessors.register(CodeAbbreviationPostprocessor(md), "docexec_code_abbr", 5)


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used when the extension is named as ``docexec.markdown_ext`` in a config."""
    return SnippetOutputExtension(**kwargs)
