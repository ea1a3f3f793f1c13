"""What the readability tests share: the rules a tooltip must follow, and a page's prose as its
source says it, to compare with what the built page shows.

Used by ``tests/test_site.py`` on the built HTML and by ``tests/test_browser.py`` in the browser.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from .conftest import ROOT

ABBREVIATIONS = ROOT / "includes" / "abbreviations.md"

#: What follows a glossary word when it is used in another sense: "leaves" is a noun in the
#: glossary, and the verb when an object or "behind" follows ("leaves behind", "leaves the counter
#: alone", "leaves autograd", "leaves `x.grad` at None"). A backtick stands for inline code.
OTHER_SENSE = {
    word: re.compile(r"^\s*(?:`|(?:behind|a|an|the|it|its|them|this|these|autograd|pytorch|python)\b)", re.I)
    for word in ("leaves", "Leaves")
}


def glossary() -> dict[str, str]:
    """The tooltips of ``includes/abbreviations.md``: term -> its definition."""
    terms = {}
    for line in ABBREVIATIONS.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\*\[(?P<term>[^\]]+)\]:\s*(?P<title>.*)$", line)
        if match:
            terms[match.group("term")] = match.group("title")
    return terms


def misused_tooltip(word: str, title: str, before: str, after: str, terms: dict[str, str]) -> str | None:
    """Why a tooltip on ``word`` (its ``title``; ``before``: the character in front of it, ``after``:
    the text that follows, inline code written in backticks) is wrong, or None when it is right:
    it must cover a whole word (not part of a hyphenated one such as "non-leaf"), carry that word's
    own definition, and not sit on the word used in another sense (the verb "leaves")."""
    if re.match(r"[\w-]", before[-1:]) or re.match(r"[\w-]", after[:1]):
        return f"{word!r} is part of the word {before[-12:]}{word}{after[:12]}"
    if terms.get(word) != title:
        return f"{word!r} has the tooltip {title[:40]!r}..., not its own"
    if word in OTHER_SENSE and OTHER_SENSE[word].match(after):
        return f"{word!r} is used in another sense than the glossary's: ...{word}{after[:30]}..."
    return None


_ABBR = re.compile(r'<abbr title="(?P<title>[^"]*)">(?P<word>[^<]*)</abbr>')


def tooltips_in_html(page: str) -> list[tuple[str, str, str, str]]:
    """Every ``<abbr>`` of a page's HTML as ``(word, title, before, after)``, for ``misused_tooltip``."""
    found = []
    for match in _ABBR.finditer(page):
        before = html.unescape(re.sub(r"<[^>]*>", "", page[max(0, match.start() - 200):match.start()]))
        following = re.sub(r"</?code>", "`", page[match.end():match.end() + 300])
        after = html.unescape(re.sub(r"<[^>]*>", "", following))
        found.append((html.unescape(match.group("word")), html.unescape(match.group("title")), before, after))
    return found


class _Text(HTMLParser):
    """The text of HTML, in blocks: one string per paragraph, list item, heading and table cell,
    and all of it; ``pre`` blocks (code and outputs) and ``svg`` drawings are left out."""

    BLOCKS = {"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "figcaption"}
    SKIPPED = {"pre", "svg", "script", "style"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.all: list[str] = []
        self.open: list[list[str]] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):  # noqa: ARG002 - HTMLParser's signature
        if tag in self.SKIPPED:
            self.skipping += 1
        elif tag in self.BLOCKS and not self.skipping:
            self.open.append([])

    def handle_endtag(self, tag):
        if tag in self.SKIPPED:
            self.skipping = max(0, self.skipping - 1)
        elif tag in self.BLOCKS and not self.skipping and self.open:
            self.blocks.append("".join(self.open.pop()))

    def handle_data(self, data):
        if not self.skipping:
            self.all.append(data)
            for block in self.open:
                block.append(data)


def squeezed(text: str) -> str:
    """``text`` without any whitespace: line breaks and spacing never decide a comparison."""
    return re.sub(r"\s+", "", text)


def prose_blocks(page_html: str) -> tuple[list[str], str]:
    """The text of each prose block of ``page_html``, and all of its text (see ``_Text``)."""
    parser = _Text()
    parser.feed(page_html)
    parser.close()
    return [block for block in parser.blocks if block.strip()], "".join(parser.all)


def source_html(markdown_text: str) -> str:
    """A page's Markdown as Python-Markdown renders it with the site's extensions (mkdocs.yml) but
    without includes or outputs (``pymdownx.snippets``, ``docexec.host.markdown_ext``): the prose the
    author wrote, which the built page must show whole. A line that ``pymdownx.snippets`` reads
    as an escaped marker (``;--8<--``, its own regular expressions) reads as the page shows it,
    without its ``;``."""
    import markdown
    from pymdownx.snippets import SnippetPreprocessor

    from .conftest import markdown_extensions

    def unescaped(line: str) -> str:
        for pattern in (SnippetPreprocessor.RE_ALL_SNIPPETS, SnippetPreprocessor.RE_SNIPPET_SECTION):
            match = pattern.match(line)
            if match and match.group("escape"):
                return line[: match.start("escape")] + line[match.start("escape") + 1:]
        return line

    extensions, configs = markdown_extensions(skip=("pymdownx.snippets", "docexec.host.markdown_ext"))
    extensions += ["tables"]  # MkDocs adds toc, tables and fenced_code to every site's extensions
    converter = markdown.Markdown(extensions=extensions, extension_configs=configs)
    return converter.convert("\n".join(unescaped(line) for line in markdown_text.split("\n")))


#: What stands for a quoted value (``{{ example: expression }}``) in the prose compared: any text.
ANY_VALUE = "QUOTEDVALUEHERE"


def unquoted(page: str) -> str:
    """``page`` with each quote of a run's value replaced by ``ANY_VALUE``."""
    from docexec.source.quotes import find_quotes, replace_quotes

    lines = page.split("\n")
    for number, line in enumerate(lines):
        quotes = find_quotes(line, number + 1) if "{{" in line else []
        lines[number] = replace_quotes(line, quotes, [ANY_VALUE] * len(quotes))
    return "\n".join(lines)


def shows(shown: str, block: str) -> bool:
    """Whether the squeezed text ``shown`` holds ``block``, any text standing where it quotes a value."""
    pieces = squeezed(block).split(ANY_VALUE)
    return re.search(".+?".join(map(re.escape, pieces)), shown) is not None if len(pieces) > 1 else pieces[0] in shown
