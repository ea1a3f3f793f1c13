"""The values a page's prose quotes (``docexec.source.quotes``), found in a build's results.

A quote names an argument of a ``print`` call in an example; the run recorded what each print
call wrote of each argument (``Printed.parts``), so the value shown is the one this build's run
printed, addresses masked as in the output block. ``problems`` says, as ``page:line: reason``,
which quotes name no value; ``html`` and ``markdown`` show a value on the page and in the
chapter notebook.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import re
import tokenize
from dataclasses import dataclass
from html import escape
from pathlib import Path

from docexec.core.files import write_atomically
from docexec.core.problems import Problem
from docexec.core.records import MAX_PART
from docexec.run.results import Results
from docexec.source import claims
from docexec.source.includes import Page
from docexec.source.quotes import CODE_SPAN, LITERAL, Quote
from docexec.versions.drift import ProseChange

#: A number as an output writes it (``12.``, ``-1.4000``, ``1e-08``, ``inf``).
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|inf|nan)(?![\w.])")
_OBJECT = re.compile(r"^<(?P<name>[\w.]+) object at \S+>$")
_GRAD_FN = re.compile(r"grad_fn=<(\w+)>")


@dataclass(frozen=True)
class Value:
    """A quoted value as shown: its text, and whether it is code."""

    text: str
    code: bool


class QuoteError(ValueError):
    """A quote that names no value of the run (the message says why)."""


def value(quote: Quote, results: Results) -> Value:
    """What ``quote`` shows from ``results``.

    Raises:
        QuoteError: its example did not run to the print, no print call writes that argument, it
            was written more than once without ``#n``, or it does not have the form asked for.
    """
    if not results.execute:  # DOCEXEC_EXECUTE=0: no run, so the expression stands for its value
        return Value(quote.expression, code=True)
    result = results.runs.get(quote.file)
    if result is None:
        raise QuoteError(f"{quote.file} did not run in this build")
    name = f"{quote.file.rsplit('/', 1)[-1]}"
    try:
        calls = _calls(results.source(quote.file), quote.expression)
    except SyntaxError as exc:
        raise QuoteError(f"{name} does not parse (line {exc.lineno}), so its prints cannot be found") from exc
    if not any(call.index is not None for call in calls):
        raise QuoteError(f"no print call in {name} has the argument {quote.expression!r}; print it there to quote it")
    written = []
    for printed in claims.masked(result):
        call = _owner(calls, printed.line) if not printed.raised else None  # it wrote nothing
        if call is not None and call.index is not None and call.index < len(printed.parts):
            written.append(printed.parts[call.index])
    if not written:
        line = next(call.first for call in calls if call.index is not None)
        raise QuoteError(f"the print of {quote.expression!r} in {name} (line {line}) never ran")
    if quote.nth is None and len(written) > 1:
        raise QuoteError(f"{name} printed {quote.expression!r} {len(written)} times: say which with #1 to "
                         f"#{len(written)}")
    if quote.nth is not None and not 1 <= quote.nth <= len(written):
        raise QuoteError(f"{name} printed {quote.expression!r} {len(written)} time(s), not {quote.nth}")
    return _form(written[(quote.nth or 1) - 1], quote)


@dataclass(frozen=True)
class _PrintCall:
    """A ``print`` call of an example: its first and last line, and the position of the quoted
    argument among its arguments (None: it does not have it)."""

    first: int
    last: int
    index: int | None


def _calls(source: str, expression: str) -> list[_PrintCall]:
    """Every ``print`` call of ``source`` (a call with a ``*`` argument has no position for the
    quoted argument: what follows the ``*`` is not known)."""
    return [_PrintCall(first, last, arguments.index(expression) if expression in arguments else None)
            for first, last, arguments in _print_calls(source)]


@functools.lru_cache(maxsize=256)
def _print_calls(source: str) -> tuple[tuple[int, int, tuple[str, ...]], ...]:
    """Each ``print`` call of ``source``: its first and last line and its arguments as Python writes
    them back (none for a call with a ``*`` argument). Read once per source: a page quotes the same
    example many times, and the page, its checks and its notebook each look the quotes up."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            starred = any(isinstance(arg, ast.Starred) for arg in node.args)
            arguments = () if starred else tuple(ast.unparse(arg) for arg in node.args)
            found.append((node.lineno, node.end_lineno or node.lineno, arguments))
    return tuple(found)


def _owner(calls: list[_PrintCall], line: int) -> _PrintCall | None:
    """The call a print made on ``line`` comes from: the innermost one around that line (a print
    inside another print's arguments is its own call)."""
    around = [call for call in calls if call.first <= line <= call.last]
    return min(around, key=lambda call: call.last - call.first, default=None)


def _form(text: str, quote: Quote) -> Value:
    if len(text) >= MAX_PART:
        raise QuoteError(f"{quote.expression!r} printed more than {MAX_PART:,} characters, more than the run keeps "
                         "of one argument; quote a shorter value")
    if quote.form == "name":  # the one Node name wherever it stands, on one line or several
        return _node_name(text, quote)
    if "\n" in text.strip():
        raise QuoteError(f"{quote.expression!r} printed {text.strip().count(chr(10)) + 1} lines; quote a value "
                         "printed on one line")
    text = text.strip()
    if quote.form == "number":
        if re.search(r"\d\.?\d*j\b", text):
            raise QuoteError(f"{quote.expression!r} printed {text!r}, a complex number: quote it as code")
        numbers = _NUMBER.findall(text)
        if len(numbers) != 1:
            raise QuoteError(f"{quote.expression!r} printed {text!r}, which holds {len(numbers)} numbers, not one")
        number = numbers[0]
        number = re.sub(r"\.0*$", "", number)  # 12. and 25.0 read as 12 and 25; 1.4000 keeps its digits
        return Value("\u2212" + number[1:] if number.startswith("-") else number, code=False)  # as text sets it
    return Value(text, code=quote.form == "code")


def _node_name(text: str, quote: Quote) -> Value:
    """The class of an object printed as ``<Name object at 0x…>``, or the one Node name in ``text``."""
    text = text.strip()
    match = _OBJECT.match(text)
    if match is not None:
        return Value(match.group("name").rsplit(".", 1)[-1], code=True)  # a Function's Node: its class name
    nodes = set(_GRAD_FN.findall(text)) | set(_NODE_NAME.findall(text))
    if len(nodes) != 1:
        raise QuoteError(f"{quote.expression!r} printed {text[:200]!r}, which is neither an object shown as "
                         f"<Name object at 0x…> nor a text with one Node name in it ({len(nodes)})")
    return Value(nodes.pop(), code=True)


def problems(page: Page, results: Results) -> list[Problem]:
    """The quotes of ``page`` that name no value of ``results``, as ``page:line: reason``."""
    found = []
    for quote in page.quotes:
        try:
            value(quote, results)
        except QuoteError as exc:
            found.append(Problem(page.name, quote.line, f"quotes {{{{ {quote.example}: {quote.expression} }}}}, "
                                                        f"but {exc}"))
    return found


def html(shown: Value) -> str:
    """A value as the page shows it."""
    return f"<code>{escape(shown.text)}</code>" if shown.code else escape(shown.text)


def markdown(shown: Value, in_table: bool = False) -> str:
    """A value as a notebook's Markdown cell shows it (``in_table``: in a table row, where ``|``
    would end the cell)."""
    if not shown.code:
        return re.sub(r"([\\`*_\[\]<>|#])", r"\\\1", shown.text.replace("&", "&amp;"))
    text = shown.text.replace("|", "\\|") if in_table else shown.text  # GFM reads \| in a cell's code as |
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"

#: A number as a sentence writes it (a point after it ends the sentence; "0-dim" names a kind of
#: tensor), and a Node's class name.
_SENTENCE_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?![\w]|\.\d|-dim)")
_NODE_NAME = re.compile(r"\b(?:\w+Backward\d*|AccumulateGrad)\b")
#: Node names that are terms of the field, defined by PyTorch's documentation rather than taken from
#: a run (every leaf that requires grad enters the graph through an AccumulateGrad Node).
_TERMS = frozenset({"AccumulateGrad"})
#: What is not a value in a line of prose: quotes, link targets, comments, and the number after a
#: word that makes it a reference (Exercise 4, Pitfall 2, chapter 10, PyTorch 2.13).
_NOT_PROSE = re.compile(r"\{\{.*?\}\}|\]\([^)]*\)|<!--.*?-->|"
                        r"\b(?:[Ee]xercises?|[Pp]itfalls?|[Cc]hapters?|[Ss]teps?|[Ss]ections?|lines?|PyTorch|Python|"
                        r"seed(?: of| gradient)?) [\d.]+(?:(?:,| and| or) [\d.]+)*")


def restatements(page: Page, results: Results) -> list[Problem]:
    """The numbers and Node names that ``page``'s prose writes by hand and that an example of the
    page printed: each would go stale when the example or PyTorch changes. Left out: a number the
    prose gives a name (``x = 2``) that the code of an example of the same section also writes (an
    input the text sets), the term
    ``AccumulateGrad``, headings, hand-drawn diagrams' lines, and a line that says why its values
    stay literal (``<!-- literal: reason -->``)."""
    printed = _printed_values(page, results)
    inputs = _section_inputs(page, results)
    diagrams = {diagram.index for diagram in page.diagrams}  # hand-drawn: their alt text explains them
    found = []
    for number, line in enumerate(page.lines, start=1):
        noted = LITERAL.search(CODE_SPAN.sub(" ", line))  # a note shown in a code span is no note
        if number - 1 in diagrams or number - 1 in page.fenced or noted or line.startswith("#"):
            continue
        prose = _LIST_MARK.sub("", _NOT_PROSE.sub(" ", line)).replace("\u2212", "-")  # a typographic minus is a minus
        prose = _FORMULA.sub(lambda match: " " if re.search(r"(?<![A-Za-z_])[a-z](?![A-Za-z_(])", match.group(0))
                             else match.group(0), prose)
        prose = CODE_SPAN.sub(lambda match: match.group(0) if _OUTPUT_LIKE.search(match.group(0)) else " ", prose)
        values = [match.group(0) for match in _SENTENCE_NUMBER.finditer(prose) if _plain(match.group(0)) in printed
                  and not _sets_input(prose[:match.start()], match.group(0), inputs[number - 1])]
        values += [name for name in _NODE_NAME.findall(prose) if name in printed and name not in _TERMS]
        found += [Problem(page.name, number, f"writes {value} by hand, and an example of the page printed it: quote "
                                             "it ({{ example: expression }}) or say why it stays "
                                             "(<!-- literal: reason -->)") for value in values]
    return found


#: Arithmetic written in the prose (``2w + 2``, ``1 / (1 - p)``, ``1 × b``): where it has a one-letter
#: variable, its numbers are the formula's, not values of a run.
_OPERAND = r"\(?\s*(?:\*?[a-z]\*?(?![\w(])|\d+(?:\.\d+)?[a-z]?\*?(?:[a-z]\*)?)\s*\)?"
_FORMULA = re.compile(rf"{_OPERAND}(?:\s*[-+×·/*]\s*{_OPERAND})+")
#: An inline code span, and what makes one read as output rather than code (``tensor(12.)``
#: against ``w * x ** 2`` or ``1.0``).
_OUTPUT_LIKE = re.compile(r"tensor\(|Size\(|grad_fn|Backward|AccumulateGrad")
#: The number of an ordered list's item.
_LIST_MARK = re.compile(r"^\s*\d+\.\s")
#: Prose that sets a name to the number after it: ``x = ``, ``` `w` = ```, ``*a* = ``.
_SETS = re.compile(r"[A-Za-z_][\w.]*[`*]?\s*=\s*$")


def _sets_input(before: str, number: str, inputs: set[str]) -> bool:
    """Whether ``number``, after the prose ``before`` it, gives a name a value that the code of an
    example of the section also writes (``x = 2`` where the code has ``torch.tensor(2.0)``): an
    input the text sets, not a value the run printed."""
    return _plain(number) in inputs and _SETS.search(before) is not None


def _printed_values(page: Page, results: Results) -> set[str]:
    """The numbers and Node names the page's examples printed."""
    printed = set()
    for path in page.snippets:
        result = results.runs.get(path)
        for text in (p.text for p in claims.masked(result)) if result is not None else ():
            printed.update(_plain(n.lstrip("+")) for n in _NUMBER.findall(text))
            printed.update(_NODE_NAME.findall(text))
    return printed


def _section_inputs(page: Page, results: Results) -> list[set[str]]:
    """For each line of ``page``, the numbers in the code of the examples its section (from one
    heading to the next) runs, a minus sign included."""
    heading = [0] * len(page.lines)
    for index in range(1, len(page.lines)):
        starts = index not in page.fenced and page.lines[index].startswith("#")
        heading[index] = index if starts else heading[index - 1]
    numbers: dict[int, set[str]] = {}
    for fence in page.fences:
        for include in fence.includes if fence.runs else ():
            numbers.setdefault(heading[fence.start], set()).update(_code_numbers(results.source(include.file)))
    return [numbers.get(start, set()) for start in heading]


def _code_numbers(source: str) -> set[str]:
    """The numbers written in ``source``'s code (not its comments), ``-5`` for ``-5.0`` too."""
    found, before = set(), None
    with contextlib.suppress(tokenize.TokenError, SyntaxError):  # reported as the run's failure
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.NUMBER:
                found.add(_plain(token.string))
                if before is not None and before.string == "-":
                    found.add("-" + _plain(token.string))
            if token.type not in (tokenize.NL, tokenize.COMMENT):
                before = token
    return found


def _plain(number: str) -> str:
    """A number as text without the zeros and point that do not change it (``12.0`` -> ``12``)."""
    if "." in number and "e" not in number.lower():
        number = number.rstrip("0").rstrip(".")
    return number or "0"


#: Where a build keeps the values the pages quoted, to say which changed in the next build.
QUOTED_CACHE = ".cache/docexec/quoted.json"


def shown_values(pages: list[Page], results: Results) -> dict[str, str]:
    """Every value the pages quote, by ``page:line: {{ quote }}``-like key (page, example,
    expression, ``#n`` and form: not the line, which prose edits move)."""
    values = {}
    for page in pages:
        for quote in page.quotes:
            with contextlib.suppress(QuoteError):  # reported as a problem of the build
                values[f"{page.name}: {quote.key}"] = value(quote, results).text
    return values


def changed_since_last_build(root: Path, pages: list[str], values: dict[str, str]) -> list[str]:
    """The quoted values that differ from those the last build showed (kept under ``QUOTED_CACHE``),
    as ``<page>: {{ quote }} was <old>, is <new>``; ``values``, those of ``pages`` now, replace what
    was kept of those pages (a quote taken out is forgotten) for the next build."""
    path = root / QUOTED_CACHE
    try:
        before = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        before = {}
    read = tuple(f"{name}: " for name in pages)
    kept = {key: text for key, text in before.items() if not key.startswith(read)} | values
    if kept != before:
        write_atomically(path, json.dumps(kept, indent=1, sort_keys=True))
    return [f"{key} was {before[key]!r}, is {new!r}" for key, new in sorted(values.items())
            if key in before and before[key] != new]


def prose_changes(pages: list[Page], main: Results, side: Results) -> list[ProseChange]:
    """The values ``pages`` quote that the runs ``side`` (another PyTorch) show differently from
    ``main``'s, for the drift record."""
    found = []
    for page in pages:
        before, after = shown_values([page], main), shown_values([page], side)
        found += [ProseChange(page.name, key.split(": ", 1)[1], old, after.get(key))
                  for key, old in before.items() if after.get(key) != old]
    return found
