"""A Python-Markdown extension that shows each included snippet's output right under its code.

A page includes a snippet the usual ``pymdownx.snippets`` way, in a plain ``python`` fence::

    ```python
    --8<-- "computational-graph/opt_in.py"
    ```

and this extension adds, after that fence, a block titled "Output" holding what that snippet (or
that section of it) wrote when it ran in this build, then the graph figure of each snippet this is
the last include of, and under the page title a line saying which PyTorch and Python produced the
outputs. Pages need no other syntax, so they still read well on GitHub and in any tool that knows
``pymdownx.snippets``. The block is the HTML that ``pymdownx.highlight`` makes of a ``text`` fence
with that title (``docexec.pages.render.output_html``), so the theme styles it and gives it a copy button.

The extension depends on Python-Markdown only (not on MkDocs), so every host that runs Markdown
extensions (MkDocs, ProperDocs, Zensical) runs it, and with it every check: on its own it runs
the snippets on the first page that needs them, checks every claim, run and committed DOT file,
and every include of each page it converts, and on any problem ends the process with status 1
after writing one ``file:line: reason`` line each (``on_problems``, below, says otherwise). The
MkDocs hook speeds this up: it starts the run early and sets ``defer``, under which the extension
only leaves its places and the hook checks and fills them.

Options:
    root: the repository root (default: the current directory).
    base_path: the snippets folder, relative to ``root`` (default ``snippets``); includes of files
        under it run and show their output. The folders includes may come from are
        ``pymdownx.snippets``' own ``base_path``.
    docs_dir: the pages' folder, relative to ``root`` (default ``docs``), to name pages in messages.
    versions_note: put the "outputs produced by" line under the title (default True).
    start_early: when the extension is first set up in a process, start the snippet worker if
        some snippet will have to run, so that its torch import overlaps the host's own start-up
        (default False; see ``Runner.prestart``).
    defer: leave the places only; the caller (the MkDocs hook) began the build, checks it and
        fills the places in (``docexec.host.build.Build.fill``). Default False.
    on_problems: ``exit``: end the process with status 1 after the ``file:line: reason`` lines;
        ``raise``: raise ``docexec.host.build.BuildError``; ``show``: write each problem once to stderr
        and list them at the top of the pages (a preview server goes on); ``auto`` (default):
        ``show`` under ``zensical serve`` (a host's server that runs no hook), else ``exit``.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import uuid
from html import escape
from pathlib import Path

from markdown import Extension
from markdown.postprocessors import Postprocessor
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

from docexec.core.problems import Problem
from docexec.graphs.figures import GraphvizError
from docexec.host import build as builds
from docexec.pages import quoted
from docexec.pages.places import ConceptDiagram, FenceOutput, Place, QuotedValue, TitleNote
from docexec.pages.render import NOT_SEARCHED_NAME, abbreviate_code, reading_minutes
from docexec.run.execute import ExecutionError
from docexec.run.results import UnknownTargetError
from docexec.source.claims import hidden
from docexec.source.includes import Include, include_folders
from docexec.source.quotes import Quote, replace_quotes, without_literal_notes
from docexec.source.snippets import included_text, indented


class SnippetOutputPreprocessor(Preprocessor):
    """Leaves a place after every running include fence, for every concept diagram line, and for
    the note under the title (``docexec.pages.places.Place``); see the module docstring."""

    def __init__(self, md, extension: SnippetOutputExtension):
        super().__init__(md)
        self.extension = extension
        self.marker = "docexec-block-" + uuid.uuid4().hex + "-"
        self.inline_marker = "docexecquote" + uuid.uuid4().hex + "x"  # letters only: no Markdown syntax in it
        self.pending: list[str] = []  # the HTML of each marker line left in this conversion
        self.places: list[Place] = []  # the places left in this conversion
        self.build: builds.Build | None = None
        self.page = None  # the record of the page being converted (docexec.source.includes.Page)

    def run(self, lines: list[str]) -> list[str]:
        self.pending, self.places = [], []
        self.build = build = self.extension.current_build(self.md)
        text = "\n".join(lines)
        self.page = page = build.page(text)
        if page.problems:
            self.extension.fail(page.problems, build)  # unless shown: then the bad includes go
            bad = {problem.line - 1 for problem in page.problems}
            lines = [f"{line[: len(line) - len(line.lstrip())]}(an include that failed: see the top of the page)"
                     if index in bad else line for index, line in enumerate(lines)]
        ends = {fence.end: fence for fence in page.fences if fence.runs and fence.answer is None}
        answers = {fence.answer: fence for fence in page.fences if fence.answer is not None}
        diagrams = {diagram.index: diagram for diagram in page.diagrams}
        key = builds.page_key(text)
        quotes: dict[int, list[Quote]] = {}
        for quote in page.quotes:
            quotes.setdefault(quote.line - 1, []).append(quote)
        out: list[str] = []
        failed = {problem.line for problem in page.problems}
        # each running include, by its line: the code as the reader sees it (included_text), and an
        # exercise's with its claims hidden, so that the reader predicts them
        shown = {i.line - 1: (i, f.answer is not None) for f in page.fences if f.runs for i in f.includes
                 if i.file and i.line not in failed}
        for index, line in enumerate(lines):
            if index in shown:
                out.extend(_shown_code(build, *shown[index], line))
                continue
            if index in diagrams:
                out.extend(self._leave(ConceptDiagram(diagram=diagrams[index]), diagrams[index].indent))
                continue
            if index in answers:  # an exercise's output, where its answer is
                indent = line[: len(line) - len(line.lstrip())]
                out.extend(self._leave(FenceOutput(fence=answers[index], page=key), indent))
                continue
            line = self._quotes_left(line, quotes[index]) if index in quotes else line
            kept = without_literal_notes(line) if index not in page.fenced else line
            if kept.strip() or not line.strip():  # a line that was only a note goes, not to split a paragraph
                out.append(kept)
            if index in ends:
                out.extend(self._leave(FenceOutput(fence=ends[index], page=key), ends[index].indent))
            elif index == page.title and ends and self.extension.getConfig("versions_note"):
                code = " ".join(build.runner.source(i.file) for f in page.fences if f.runs for i in f.includes)
                minutes = reading_minutes([lines[i] for i in range(len(lines)) if i not in page.fenced], code)
                out.extend(self._leave(TitleNote(page=key, minutes=minutes, fences=tuple(page.fences)), ""))
        return out

    def _quotes_left(self, line: str, quotes: list[Quote]) -> str:
        """``line`` with a place left for each of its quotes: an inline marker, stashed later as the
        block markers are (``BlockPlaceholderPreprocessor``)."""
        markers = []
        for quote in quotes:
            self.places.append(QuotedValue(quote=quote))
            self.pending.append(self.build.place(self.places[-1]))
            markers.append(f"{self.inline_marker}{len(self.pending) - 1}x")
        return replace_quotes(line, quotes, markers)

    def _leave(self, place: Place, indent: str) -> list[str]:
        # Python-Markdown's whitespace normalizer (priority 30) strips stash placeholders, so leave a
        # marker line here and let BlockPlaceholderPreprocessor (priority 29) stash the place.
        self.places.append(place)
        self.pending.append(self.build.place(place))
        return ["", f"{indent}{self.marker}{len(self.pending) - 1}", ""]


def _shown_code(build: builds.Build, include: Include, exercise: bool, line: str) -> list[str]:
    """The lines the include ``line`` of a running fence stands for (``included_text``), indented as
    it is; for an exercise, with its claims hidden (``claims.hidden``)."""
    code = included_text(build.runner.source(include.file), include.section)
    return indented(hidden(code) if exercise else code, line[: len(line) - len(line.lstrip())])


class BlockPlaceholderPreprocessor(Preprocessor):
    """Replaces the marker lines ``SnippetOutputPreprocessor`` left with their places, stashed
    (Python-Markdown passes stashed HTML through unchanged, wherever the placeholder ends up: a
    paragraph of its own, an admonition, a raw HTML block)."""

    def __init__(self, md, outputs: SnippetOutputPreprocessor):
        super().__init__(md)
        self.outputs = outputs
        self.placeholders: set[str] = set()  # the stash placeholders made in this conversion
        self.answers: set[str] = set()  # those of them that stand where an exercise's answer is

    def run(self, lines: list[str]) -> list[str]:
        marker = self.outputs.marker
        self.placeholders, self.answers = set(), set()
        out = []
        for line in lines:
            if self.outputs.inline_marker in line:
                line = self._stash_quotes(line)
            stripped = line.strip()
            if stripped.startswith(marker):
                index = int(stripped[len(marker):])
                placeholder = self.md.htmlStash.store(self.outputs.pending[index])
                self.placeholders.add(placeholder)
                place = self.outputs.places[index]
                if isinstance(place, FenceOutput) and place.fence.answer is not None:
                    self.answers.add(placeholder)
                line = line[: len(line) - len(line.lstrip())] + placeholder
            out.append(line)
        return out


    def _stash_quotes(self, line: str) -> str:
        """``line`` with the inline markers of quotes replaced by their places, stashed."""
        def stash(match: re.Match) -> str:
            return self.md.htmlStash.store(self.outputs.pending[int(match.group(1))])

        return re.sub(rf"{self.outputs.inline_marker}(\d+)x", stash, line)


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


class AnswerTreeprocessor(Treeprocessor):
    """Keeps every exercise's answer out of the search index: the folded block (``??? success
    "Answer"``, a ``details`` element) that holds an answer's output gets ``NOT_SEARCHED``'s attribute, so a
    search finds the exercise by its question and does not show its answer."""

    def __init__(self, md, blocks: BlockPlaceholderPreprocessor):
        super().__init__(md)
        self.blocks = blocks

    def run(self, root) -> None:
        if not self.blocks.answers:
            return
        for details in root.iter("details"):
            if any(p.text and p.text.strip() in self.blocks.answers for p in details.iter("p")):
                details.set(NOT_SEARCHED_NAME, NOT_SEARCHED_NAME)


class CodeAbbreviationPostprocessor(Postprocessor):
    """Gives an inline code span whose whole text is a defined abbreviation (``grad_fn``) that
    abbreviation's tooltip, as Python-Markdown's ``abbr`` does for plain text (it skips code), and
    records the page's terms on its places, so that what fills them gets the same.

    It works on the finished HTML because ``pymdownx.inlinehilite`` stashes code spans away from
    tree processors.
    """

    def __init__(self, md, outputs: SnippetOutputPreprocessor):
        super().__init__(md)
        self.outputs = outputs
        self._given: tuple[list, dict] | None = None  # the places given terms last, and those terms

    def run(self, text: str) -> str:
        # the abbr extension's terms (a Registry has no get())
        terms = getattr(self.md.treeprocessors["abbr"], "abbrs", {}) if "abbr" in self.md.treeprocessors else {}
        if not terms:
            return text
        places = self.outputs.places
        if self._given is None or self._given[0] is not places or self._given[1] != terms:
            given = dict(terms)  # once per page: the toc extension runs the postprocessors on every heading too
            for place in places:
                place.terms.clear()
                place.terms.update(given)
            self._given = (places, given)
        return abbreviate_code(text, terms)


class FillPostprocessor(Postprocessor):
    """Without ``defer``: checks the whole build once (every run, claim and DOT file) and fills this
    page's places in; on a problem, fails as ``on_problems`` says."""

    def __init__(self, md, outputs: SnippetOutputPreprocessor, extension: SnippetOutputExtension):
        super().__init__(md)
        self.outputs = outputs
        self.extension = extension

    def run(self, text: str) -> str:
        build = self.outputs.build
        if build is None or not self.outputs.places:
            return text
        try:
            results = build.check()  # once per build: the quotes of the pages converted after it are checked here
            wrong = quoted.problems(self.outputs.page, results)
            if wrong:
                raise builds.BuildError(wrong)
            build.draw_all(results)  # every figure at once, in parallel; unused drawings dropped
            return build.fill(text, results)
        except builds.BuildError as failure:
            problems = failure.problems
        except (ExecutionError, GraphvizError, UnknownTargetError) as error:
            problems = [Problem(self.outputs.page.name, 0, str(error))]
        self.extension.fail(problems, build)  # unless shown: the page goes on with what is there, under a notice
        with contextlib.suppress(ExecutionError, GraphvizError, UnknownTargetError):
            text = build.fill(text, build.runner.results())
        return problems_html(problems) + text


class SnippetOutputExtension(Extension):
    """Registers the processors above; see the module docstring for the options."""

    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "repository root"],
            "base_path": ["snippets", "the snippets folder, relative to root"],
            "docs_dir": ["docs", "the pages' folder, relative to root"],
            "versions_note": [True, "add the 'outputs produced by' line under the title"],
            "start_early": [False, "start the snippet worker when the extension is first set up"],
            "defer": [False, "leave the places only: the caller checks the build and fills them in"],
            "on_problems": ["auto", "exit: end the process with file:line lines; raise: raise BuildError; "
                                    "show: list them at the top of the page; auto: show under a preview "
                                    "server (zensical serve), else exit"],
        }
        super().__init__(**kwargs)
        self.root = Path(self.getConfig("root")).resolve()
        self.folder = self.getConfig("base_path")
        if self.getConfig("start_early"):
            builds.runner_for(self.root, self.folder).prestart(first_run_only=True)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        outputs = SnippetOutputPreprocessor(md, self)
        md.preprocessors.register(outputs, "docexec_output", 34)  # before pymdownx.snippets (32)
        blocks = BlockPlaceholderPreprocessor(md, outputs)
        md.preprocessors.register(blocks, "docexec_blocks", 29)
        md.treeprocessors.register(AtomicPlaceholderTreeprocessor(md, blocks), "docexec_atomic", 25)
        md.treeprocessors.register(AnswerTreeprocessor(md, blocks), "docexec_answers", 24)
        md.postprocessors.register(CodeAbbreviationPostprocessor(md, outputs), "docexec_code_abbr", 5)
        if not self.getConfig("defer"):
            md.postprocessors.register(FillPostprocessor(md, outputs, self), "docexec_fill", 4)

    def current_build(self, md) -> builds.Build:
        """The build this conversion belongs to: the one the hook began (``defer``), else this
        process's own, begun anew when none is under way or a file it ran from has changed since
        (``Build.stale``: a host serving the site converts pages again after an edit)."""
        build = builds.current(self.root, self.folder)
        if self.getConfig("defer"):
            if build is None:
                raise RuntimeError("docexec.host.markdown_ext: defer is set but no build was begun "
                                   "(docexec.host.build.begin)")
            return build
        if build is None or build.stale():
            build = builds.begin(self.root, self.folder, _include_paths(md, self.root),
                                 self.getConfig("docs_dir"), watch=True, preview=_serving())
            if build.drift_problem is not None:  # reported, not failed: see docexec.pages.drift_page
                print(f"docexec: {build.drift_problem}", file=sys.stderr)
        return build

    def fail(self, problems: list[Problem], build: builds.Build) -> None:
        """Stop the build on ``problems`` as ``on_problems`` says; with ``show``, write each problem
        to stderr once and return (the caller shows them on the page)."""
        mode = self.getConfig("on_problems")
        if mode == "auto":
            mode = "show" if _serving() else "exit"
        if mode == "raise":
            raise builds.BuildError(problems)
        if mode == "show":
            build.report_once(problems)
            return
        builds.exit_with(problems)


def _serving() -> bool:
    """Whether this process is a host's preview server that runs no hook of ours (``zensical
    serve``): ending it on a problem would end the preview; the problems are shown instead."""
    program = sys.argv[0].replace(os.sep, "/")
    return ("zensical" in program.rsplit("/", 2)[-2:] or program.endswith("/zensical")) and sys.argv[1:2] == ["serve"]


def problems_html(problems: list[Problem]) -> str:
    """A notice for the top of a page listing ``problems`` (at most ten), for a preview server."""
    items = "".join(f"<li><code>{escape(str(problem))}</code></li>" for problem in problems[:10])
    more = f"<li>and {len(problems) - 10} more</li>" if len(problems) > 10 else ""
    return ('<div class="admonition failure"><p class="admonition-title">This build has problems; the '
            f"preview shows the pages anyway</p><ul>{items}{more}</ul></div>\n")


def _include_paths(md, root: Path) -> list[str]:
    """The folders ``pymdownx.snippets`` takes includes from, relative to ``root``."""
    configured = next((e.getConfig("base_path") for e in md.registeredExtensions
                       if type(e).__module__ == "pymdownx.snippets"), ".")
    return include_folders(configured, str(root))


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used when the extension is named as ``docexec.host.markdown_ext`` in a config."""
    return SnippetOutputExtension(**kwargs)
