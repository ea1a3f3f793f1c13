"""Output claims: what a snippet's comments say its ``print`` calls write, checked and rewritten.

The convention (from the module author's draft, see ``docs/contributing.md``):

* ``print(x.requires_grad)  # True -> PyTorch records ops on x``: the text before `` -> `` (the whole
  comment when there is no arrow) is a claim about the one line that print call writes; the rest
  is a note for the reader, never checked.
* A print whose output spans several lines, or that runs several times, carries its claim in
  ``#>`` lines right below the call, one per output line; its own comment may then hold only a
  note: ``print(t)  # -> a 2x2 tensor``.
* ``...`` in a claim matches any text (``doctest``'s ELLIPSIS rule). What changes from one run to
  the next, object addresses and ids (``0x7f03b095d810``, ``id(x)``), is printed as ``0x…`` (or
  ``…`` for a decimal id): the run says which numbers were addresses (``mask``), and a claim shows
  them masked. Every other number, hexadecimal or not, is claimed as printed.
* Every ``print`` call in a snippet file carries a claim.

All functions here are pure text functions: they take source text and recorded print output and
return problems or new source text. Nothing here runs code or touches the file system.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass, field

from docexec.core.problems import Problem
from docexec.core.records import Printed, RunResult
from docexec.source.snippets import split_lines

#: Numbers that may be an address or an id: hexadecimal with six digits or more, decimal with seven
#: or more (no address of a running process is lower). The run decides which ones were.
ADDRESS_LIKE = re.compile(r"\b(?:0x[0-9a-fA-F]{6,}|[0-9]{7,})\b")
#: What a hexadecimal address becomes, on the page and in claims; a decimal id becomes "…".
ADDRESS_PLACEHOLDER = "0x…"

_BLOCK_LINE = re.compile(r"^[ \t]*#>(?: (?P<text>.*)|[ \t]*)$")
ARROW = " -> "


def mask(text: str, addresses: list[str] | set[str]) -> str:
    """``text`` with each of ``addresses`` (numbers the run found to be addresses or ids, as
    printed) shown as ``0x…`` (hexadecimal) or ``…`` (decimal), wherever it stands as a whole number."""
    if not addresses:
        return text
    found = set(addresses)

    def hide(match: re.Match) -> str:
        token = match.group(0)
        if token not in found:
            return token
        return ADDRESS_PLACEHOLDER if token.startswith("0x") else "…"

    return ADDRESS_LIKE.sub(hide, text)


def masked(result: RunResult) -> list[Printed]:
    """``result``'s prints with addresses and ids masked (``mask``): what claims are checked against."""
    if not result.addresses:
        return result.prints
    return [Printed(p.line, mask(p.text, result.addresses), tuple(mask(part, result.addresses) for part in p.parts),
                    p.raised) for p in result.prints]


class ClaimSyntaxError(ValueError):
    """A snippet whose claims cannot be read (it does not parse, or two prints share a line)."""

    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(message)


@dataclass
class PrintSite:
    """One ``print(...)`` call in a snippet and the claim attached to it.

    Attributes:
        line, end_line: first and last source line of the call (1-based).
        indent: the leading whitespace of the call's first line.
        comment_col: column of the ``#`` of the comment on ``end_line``, or None.
        claim: the inline claim (text before `` -> ``), or None when there is none.
        note: the note after `` -> ``, or None.
        block: the ``#>`` lines below the call, without their ``#> `` prefix.
    """

    line: int
    end_line: int
    indent: str
    comment_col: int | None = None
    claim: str | None = None
    note: str | None = None
    block: list[str] = field(default_factory=list)

    @property
    def expected(self) -> list[str] | None:
        """The claimed output lines, or None when the print carries no claim."""
        if self.block:
            return list(self.block)
        if self.claim is not None:
            return [self.claim]
        return None


def find_print_sites(source: str) -> list[PrintSite]:
    """Find every ``print`` call in ``source`` with the claim written next to it.

    Raises:
        ClaimSyntaxError: the source does not parse, or two print calls end on the same line.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise ClaimSyntaxError(exc.lineno or 0, f"the snippet does not parse: {exc.msg}") from exc
    lines = split_lines(source)
    calls = sorted(
        (node for node in ast.walk(tree)
         if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"),
        key=lambda node: (node.lineno, node.col_offset),
    )
    # A print nested inside another print's arguments belongs to the outer one.
    nested = {id(node) for call in calls for node in ast.walk(call) if node is not call}
    outer = [c for c in calls if id(c) not in nested]
    comments = _comments_by_line(source)
    sites: list[PrintSite] = []
    seen_end: dict[int, int] = {}
    for call in outer:
        end = call.end_lineno or call.lineno
        if end in seen_end:
            raise ClaimSyntaxError(end, f"two print calls end on line {end}; give each its own line so each can "
                                        "carry a claim")
        seen_end[end] = call.lineno
        first = lines[call.lineno - 1]
        site = PrintSite(line=call.lineno, end_line=end, indent=first[: len(first) - len(first.lstrip())])
        if end in comments:
            col, text = comments[end]
            site.comment_col = col
            site.claim, site.note = _split_comment(text)
        number = end + 1
        while number <= len(lines):
            match = _BLOCK_LINE.match(lines[number - 1])
            if not match:
                break
            site.block.append((match.group("text") or "").rstrip())
            number += 1
        sites.append(site)
    return sites


def _statement_ends(source: str) -> dict[int, int]:
    """The first line of each simple statement (``exec(`` ... ``)``) -> its last line."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    return {node.lineno: node.end_lineno for node in ast.walk(tree)
            if isinstance(node, ast.stmt) and not hasattr(node, "body") and node.end_lineno}


def _comments_by_line(source: str) -> dict[int, tuple[int, str]]:
    """Each line's comment: its column and text. ``tokenize`` stops on a few sources that Python runs
    (a lone backslash line after a block): it starts again after the line it stopped on."""
    comments: dict[int, tuple[int, str]] = {}
    lines = io.StringIO(source, newline=None).readlines()
    start = 0
    while start < len(lines):
        try:
            for token in tokenize.generate_tokens(io.StringIO("".join(lines[start:])).readline):
                if token.type == tokenize.COMMENT:
                    comments[start + token.start[0]] = (token.start[1], token.string)
            break
        except (tokenize.TokenError, SyntaxError) as exc:  # IndentationError is a SyntaxError
            stopped = exc.lineno if isinstance(exc, SyntaxError) else exc.args[1][0]
            start += max(1, stopped or 1)
    return comments


def _split_comment(comment: str) -> tuple[str | None, str | None]:
    text = comment[1:].strip()
    if text.startswith(">"):  # a '#>' line on the call itself is a claim line, not a note
        return text[1:].strip(), None
    if text.startswith("->"):
        return None, text[2:].strip() or None
    if ARROW in text:
        claim, note = text.split(ARROW, 1)
        return claim.strip(), note.strip() or None
    if text.endswith(" ->"):
        return text[:-3].strip(), None
    return text, None


def orphan_claim_lines(source: str, sites: list[PrintSite]) -> list[int]:
    """Lines holding a ``#>`` claim that is not right below a print call (so nothing checks it)."""
    owned = set()
    for site in sites:
        owned.update(range(site.end_line + 1, site.end_line + 1 + len(site.block)))
    return [number for number, line in enumerate(split_lines(source), start=1)
            if _BLOCK_LINE.match(line) and number not in owned]


def site_for_line(sites: list[PrintSite], line: int) -> PrintSite | None:
    """The print call whose source lines contain ``line`` (the innermost one), or None."""
    best = None
    for site in sites:
        if site.line <= line <= site.end_line and (best is None or site.line >= best.line):
            best = site
    return best


def printed_lines(sites: list[PrintSite], prints: list[Printed]) -> dict[int, list[str] | None]:
    """Group recorded print output by call site.

    Args:
        sites: from ``find_print_sites``.
        prints: what each print call the run made in the snippet file wrote, in order.

    Returns:
        For each site's first line: the output lines of all its calls, addresses normalized and
        trailing whitespace removed; None when that print never ran.
    """
    chunks: dict[int, list[str]] = {}
    site_of: dict[int, PrintSite | None] = {}  # a loop's print records the same line many times
    for printed in prints:
        if printed.raised:  # it wrote nothing (``raised_sites``)
            continue
        if printed.line not in site_of:
            site_of[printed.line] = site_for_line(sites, printed.line)
        site = site_of[printed.line]
        if site is not None:
            chunks.setdefault(site.line, []).append(printed.text)
    out: dict[int, list[str] | None] = {}
    for site in sites:
        if site.line not in chunks:
            out[site.line] = None
            continue
        body = "".join(chunks[site.line])
        if body.endswith("\n"):
            body = body[:-1]
        out[site.line] = [line.rstrip() for line in split_lines(body + "\n")] if body else [""]
    return out


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether claimed lines match printed lines (``...`` matches any text); addresses in the
    printed lines must have been masked already (``mask``)."""
    want = "\n".join(line.rstrip() for line in expected) + "\n"
    got = "\n".join(line.rstrip() for line in actual) + "\n"
    import doctest  # here: a warm build checks no claim, and doctest imports unittest and pdb

    return doctest.OutputChecker().check_output(want, got, doctest.ELLIPSIS | doctest.DONT_ACCEPT_TRUE_FOR_1)


def check(path: str, source: str, prints: list[Printed], complete: bool = True,
          unattributed: list[int] | tuple[int, ...] = ()) -> list[Problem]:
    """Compare every claim in a snippet with what its run printed.

    Args:
        path: the snippet's path as it should appear in messages (``snippets/x/y.py``).
        source: the snippet's text.
        prints: the run's print records (``RunResult.prints``).
        complete: False when the run stopped early (an error): prints that never ran are then not
            reported, since the error already is.
        unattributed: the lines that wrote output no print call of the snippet made
            (``RunResult.unattributed``): a comment after the code of such a line, with no print
            call there, reads as a claim that nothing checks, and is refused.

    Returns:
        One ``Problem`` per print call with no claim, a claim that does not hold, or a claim on a
        print that never ran; an empty list when all claims hold.
    """
    try:
        sites = find_print_sites(source)
    except ClaimSyntaxError as exc:
        return [Problem(path, exc.line, str(exc))]
    actual = printed_lines(sites, prints)
    problems = []
    for line in orphan_claim_lines(source, sites):
        problems.append(Problem(path, line, "this '#>' claim line is not right below a print call, so nothing "
                                            "checks it (run `make fix` to remove it)"))
    for line in sorted({p.line for p in prints if site_for_line(sites, p.line) is None}):
        problems.append(Problem(path, line, "print is called under another name here, so its output cannot carry "
                                            "a claim; call print(...) directly"))
    comments = _comments_by_line(source)
    ends = _statement_ends(source) if unattributed else {}
    written = set(unattributed) | {ends.get(n, n) for n in unattributed}  # a statement's comment is on its last line
    for line in sorted({n for n in written if n in comments and site_for_line(sites, n) is None}):
        problems.append(Problem(path, line, "this line writes output that no print(...) call on it made (exec, a "
                                            "print in another file, sys.stdout.write, os.write or a child process), "
                                            "so the comment after it cannot be checked as a claim: print the value "
                                            "with print(...) here, or put the comment on a line of its own"))
    raised = raised_sites(sites, prints)
    for site in sites:
        reason = _site_problem(site, actual[site.line], complete, elsewhere=bool(unattributed),
                               raised=raised.get(site.line, ""))
        if reason:
            problems.append(Problem(path, site.line, reason))
    return problems


def raised_sites(sites: list[PrintSite], prints: list[Printed]) -> dict[int, str]:
    """For each site (by its first line) whose calls raised before they finished: the exception's name."""
    found = {}
    for printed in prints:
        site = site_for_line(sites, printed.line) if printed.raised else None
        if site is not None:
            found.setdefault(site.line, printed.raised)
    return found


def _site_problem(site: PrintSite, got: list[str] | None, complete: bool, elsewhere: bool = False,
                  raised: str = "") -> str | None:
    """What is wrong with the claim of one print call that printed ``got`` (None: it never ran), if
    anything. ``elsewhere``: the run wrote output by other routes, which may hold this print's (a
    process started with multiprocessing's spawn runs its own copy of the file). ``raised``: the
    exception a call of this print raised before it wrote anything, if one did."""
    want = site.expected
    if site.block and site.claim is not None:
        return "this print has both an inline claim and '#>' lines; keep one (run `make fix` to keep the '#>' lines)"
    if got is None and raised:  # as under `python file.py`, where the example catches it
        return None if want is None else (
            f"this print raised {raised} before it finished writing, so its claim cannot hold: remove the claim "
            "(`make fix` removes it; a comment on a line of its own can say what happens)")
    if got is None and elsewhere:
        return None if want is None else (
            "this print did not run in the example's own process, so its claim cannot be checked; the output "
            "written by other routes may be its (a process started with multiprocessing's spawn or forkserver "
            "runs its own copy of the file): remove the claim")
    if got is None:
        if not complete:
            return None
        if want is not None:
            return "this print never ran, so its claim cannot be checked"
        return "this print never ran and carries no claim"
    if want is None:
        return f"print has no output claim; it printed {show_printed(got)} (run `make fix` to add it)"
    if not matches(want, got):
        return (f"claim does not hold: claimed {show_printed(want)}, printed {show_printed(got)} "
                "(run `make fix` to update it)")
    return None


def show_printed(lines: list[str]) -> str:
    """Printed lines in one message: their text's repr, cut after 200 characters."""
    text = "\n".join(lines)
    if len(text) > 200:
        text = text[:200] + "…"
    return repr(text)


#: What an exercise shows instead of a claim: the reader predicts it.
HIDDEN = "# ?"


@functools.lru_cache(maxsize=512)
def hidden(source: str) -> str:
    """``source`` as an exercise shows it: each print's claim (and note) replaced by ``# ?`` and its
    ``#>`` lines left out, so the reader predicts what the build checked. A source that does not
    parse is returned as it is (the run reports it). Kept for the same ``source``: a page and its
    notebook show each exercise, and ``mkdocs serve`` converts every page again on each rebuild."""
    try:
        sites = find_print_sites(source)
    except ClaimSyntaxError:
        return source
    lines = split_lines(source, keepends=True)
    for site in sorted(sites, key=lambda s: s.line, reverse=True):
        if site.expected is None:
            continue
        del lines[site.end_line: site.end_line + len(site.block)]
        text = lines[site.end_line - 1]
        ending = text[len(text.rstrip("\r\n")):]
        code = text[: site.comment_col].rstrip() if site.comment_col is not None else text.rstrip("\r\n")
        lines[site.end_line - 1] = f"{code}  {HIDDEN}{ending}"
    return "".join(lines)
