"""Values the prose quotes from a run, as a page writes them: ``{{ example: expression }}``.

A sentence, a table cell, an admonition or an answer's text can show what an example on the same
page printed, instead of restating it by hand::

    The run gives x.grad = {{ seed_gradient: x.grad | number }}, and y's grad_fn is
    {{ seed_gradient: y.grad_fn | name }}.

* ``example`` names an example the page runs: its file name without ``.py`` (``seed_gradient``),
  or with its chapter folder (``backward-pass/seed_gradient``) when two on the page share a name.
* ``expression`` is an argument of a ``print`` call in that example, as written there (spacing
  does not matter): the quote shows what ``print`` wrote of that argument in this build's run.
  A name, not a line number: inserting lines in the example does not change what it quotes.
* ``#n`` (optional, after the expression) picks the n-th time, in the order of the run, that a
  print wrote that argument; without it, it must have been written exactly once.
* ``| form`` (optional) says how to show it: ``code`` (the default) as code; ``number``: the one
  number in it, as text (``tensor(12.)`` gives 12); ``name``: the class of an object printed as
  ``<MulBackward0 object at 0x…>``, or the one Node name in what was printed (a tensor's
  ``grad_fn=<MulBackward0>``, ``(False, 'ViewBackward0')``), as code; ``text``: as text.

This module only reads the syntax; ``docexec.pages.quoted`` finds the values in a build's results.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

#: The ways a quoted value is shown (see the module docstring).
FORMS = ("code", "number", "name", "text")

#: What a line of prose carries to say why a value in it stays literal (``make check`` then lists
#: none of its values); it is for authors, and pages and notebooks leave it out.
LITERAL = re.compile(r"[ \t]*<!--\s*literal:\s*\S.*?-->")

QUOTE = re.compile(r"\{\{\s*(?P<example>[\w./-]+?)\s*:\s*(?P<expression>[^{}]+?)\s*(?:#(?P<nth>\d+)\s*)?"
                   r"(?:\|\s*(?P<form>\w+)\s*)?\}\}")
#: An inline code span.
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_NOT_READ = re.compile(rf"{CODE_SPAN.pattern}|<!--.*?-->")  # code spans and comments: no quote there


@dataclass(frozen=True)
class Quote:
    """One ``{{ example: expression }}`` in a page.

    Attributes:
        line: its 1-based line in the page.
        start, end: where it stands in that line (``line_text[start:end]`` is its text).
        example: the example as the page names it.
        expression: the print argument it quotes, as Python prints it back (``ast.unparse``).
        nth: which time that argument was printed (1-based), or None: the only time.
        form: how it is shown (one of ``FORMS``).
        file: the example's repository path, once found among the page's examples ("" until then).
    """

    line: int
    start: int
    end: int
    example: str
    expression: str
    nth: int | None
    form: str
    file: str = ""

    @property
    def key(self) -> str:
        """The quote as its page names it, whatever its line: ``{{ example: expression #n | form }}``."""
        nth = f" #{self.nth}" if self.nth else ""
        return f"{{{{ {self.example}: {self.expression}{nth} | {self.form} }}}}"


class QuoteSyntaxError(ValueError):
    """A ``{{ ... }}`` that is not a quote as the module docstring describes."""


def find_quotes(line_text: str, line: int, heading: bool = False) -> list[Quote]:
    """The quotes on one line of prose, left to right; text in code spans and comments is not read.

    Raises:
        QuoteSyntaxError: a quote whose expression is not Python or whose form is unknown, braces
            that are not a quote, or a quote in a heading (the table of contents would not show it).
    """
    spans = [match.span() for match in _NOT_READ.finditer(line_text)]
    found = []
    for match in QUOTE.finditer(line_text):
        if any(start <= match.start() < end for start, end in spans):
            continue
        form = match.group("form") or "code"
        if form not in FORMS:
            raise QuoteSyntaxError(f"{match.group(0)}: there is no form {form!r}; use one of {', '.join(FORMS)}")
        found.append(Quote(line, match.start(), match.end(), match.group("example"),
                           normal(match.group("expression"), match.group(0)),
                           int(match.group("nth")) if match.group("nth") else None, form))
    if found and (heading or line_text.lstrip().startswith("#")):  # an ATX heading, or a setext one (``heading``)
        raise QuoteSyntaxError("a heading cannot quote a value: the table of contents and the page title would "
                               "show it without the value")
    rest = replace_quotes(line_text, found, [""] * len(found))
    rest = _NOT_READ.sub("", rest)
    if "{{" in rest or "}}" in rest:  # braces a reader would see, meant as a quote or not
        raise QuoteSyntaxError("this line holds '{{' or '}}' that is not a quote {{ example: expression }} on one "
                               "line (an expression with braces or an f-string cannot be quoted): fix the quote, "
                               "or write the braces in a code span")
    return found


def normal(expression: str, context: str = "") -> str:
    """``expression`` as Python writes it back (``ast.unparse``), so that spacing does not matter.

    Raises:
        QuoteSyntaxError: it is not a Python expression.
    """
    if "#" in expression:  # Python would read it as a comment and quote what stands before it
        raise QuoteSyntaxError(f"{context or expression}: after the expression, '#' takes a number (#2)")
    try:
        return ast.unparse(ast.parse(expression.strip(), mode="eval").body)
    except SyntaxError as exc:
        raise QuoteSyntaxError(f"{context or expression}: {expression.strip()!r} is not a Python expression "
                               f"({exc.msg})") from exc


def replace_quotes(line_text: str, quotes: list[Quote], shown: list[str]) -> str:
    """``line_text`` with each of ``quotes`` (all on that line, left to right) replaced by the text
    at the same position in ``shown``."""
    out, last = [], 0
    for quote, text in zip(quotes, shown, strict=True):
        out += [line_text[last:quote.start], text]
        last = quote.end
    return "".join(out) + line_text[last:]


def without_literal_notes(line_text: str) -> str:
    """``line_text`` without its ``<!-- literal: ... -->`` notes."""
    if "<!--" not in line_text:
        return line_text
    return re.sub(rf"{CODE_SPAN.pattern}|{LITERAL.pattern}",  # a code span that shows one stays
                  lambda match: match.group(0) if match.group(1) else "", line_text)
