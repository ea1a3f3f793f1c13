"""``make fix``'s half of the claims: each print's claim rewritten to what its run printed, every
other byte of the file kept, and the result checked to parse to the same code."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from docexec.core.records import Printed
from docexec.source.claims import (
    ARROW,
    ClaimSyntaxError,
    check,
    find_print_sites,
    matches,
    orphan_claim_lines,
    printed_lines,
    raised_sites,
    site_for_line,
)
from docexec.source.snippets import LINE_LIMIT, split_lines


def remap_prints(old_source: str, new_source: str, prints: list[Printed]) -> list[Printed]:
    """Move print records of ``old_source`` to the lines of the same calls in ``new_source``.

    ``new_source`` must differ from ``old_source`` in comments only (what ``rewrite`` does), so both
    hold the same print calls in the same order.
    """
    old_sites, new_sites = find_print_sites(old_source), find_print_sites(new_source)
    if len(old_sites) != len(new_sites):
        raise ValueError("the two sources do not hold the same print calls")
    moved = []
    for printed in prints:
        site = site_for_line(old_sites, printed.line)
        shift = 0 if site is None else new_sites[old_sites.index(site)].line - site.line
        moved.append(Printed(printed.line + shift, printed.text, printed.parts, printed.raised))
    return moved


def remap_lines(old_source: str, new_source: str, lines: list[int]) -> list[int]:
    """Move lines of code of ``old_source`` to where they are in ``new_source`` (as ``remap_prints``):
    a line keeps its distance to the next print call, or to the end of the file after the last."""
    old_sites, new_sites = find_print_sites(old_source), find_print_sites(new_source)
    old_end, new_end = old_source.count("\n"), new_source.count("\n")
    moved = []
    for line in lines:
        after = next((i for i, site in enumerate(old_sites) if site.line > line), None)
        moved.append(line + (new_end - old_end if after is None else new_sites[after].line - old_sites[after].line))
    return moved


@dataclass(frozen=True)
class Change:
    """One claim rewritten by ``rewrite``: where, and the claimed lines before and after."""

    line: int
    before: list[str] | None
    after: list[str] | None  # None: the claim was removed (its print raised)


def rewrite(source: str, prints: list[Printed]) -> tuple[str, list[Change]]:
    """Return ``source`` with every missing or stale claim replaced by what was printed.

    Claims that hold are left exactly as written (so hand-written ``...`` patterns survive), notes
    after `` -> `` are kept, a print that never ran is left alone, and the claim of one that raised
    before it wrote is removed (nothing printed can bear it out). Single-line output goes in
    the comment (``# value -> note``) when the line stays within ``snippets.LINE_LIMIT``; output of
    several lines, text containing `` -> `` or a line that would grow longer goes in ``#>`` lines
    below the call.

    Raises:
        ClaimSyntaxError: ``source`` does not parse, or a printed line is too long for a claim line
            (``snippets.LINE_LIMIT``); nothing is rewritten.
    """
    sites = find_print_sites(source)
    actual = printed_lines(sites, prints)
    raised = raised_sites(sites, prints)
    lines = split_lines(source, keepends=True)
    ending = _line_ending(lines)
    changes: list[Change] = []
    orphans = set(orphan_claim_lines(source, sites))
    edits = sorted([(site.line, site) for site in sites] + [(line, None) for line in orphans],
                   key=lambda pair: pair[0], reverse=True)
    for number, site in edits:
        if site is None:  # an orphan '#>' line: nothing checks it, so it goes
            changes.append(Change(number, [split_lines(lines[number - 1])[0].strip()], []))
            del lines[number - 1]
            continue
        got = actual[site.line]
        if got is None and site.line in raised and site.expected is not None:
            changes.append(Change(site.line, site.expected, None))
            _replace_claim(lines, site, [], ending)
            continue
        if got is None:
            continue
        want = site.expected
        both = bool(site.block) and site.claim is not None
        if want is not None and matches(want, got) and not both:
            continue
        changes.append(Change(site.line, want, got))
        inline = (
            len(got) == 1 and got[0] and got[0] == got[0].strip() and ARROW not in got[0]
            and not got[0].startswith(("->", ">")) and not got[0].endswith(" ->") and not both
        )
        end_text = lines[site.end_line - 1].rstrip("\r\n")
        code = end_text[: site.comment_col].rstrip() if site.comment_col is not None else end_text.rstrip()
        new_end = f"{code}  # {got[0]}" + (ARROW + site.note if site.note else "")
        if inline and len(new_end) <= LINE_LIMIT:
            block: list[str] = []
        else:
            new_end = f"{code}  # -> {site.note}" if site.note else code
            block = [f"{site.indent}#> {line}".rstrip() if line else f"{site.indent}#>" for line in got]
            too_long = next((line for line in block if len(line) > LINE_LIMIT), None)
            if too_long is not None:
                raise ClaimSyntaxError(site.line, f"it printed a line too long for a '#>' claim line "
                                       f"({len(too_long)} characters with the claim's mark; the limit is "
                                       f"{LINE_LIMIT}): print it shorter or wrapped (textwrap.fill)")
        _replace_claim(lines, site, block, ending, new_end)
    changes.reverse()
    new_source = "".join(lines)
    if source and not source.endswith(("\n", "\r")) and new_source.endswith(ending):
        new_source = new_source[: -len(ending)]
    _verify_rewrite(source, new_source, prints)
    return new_source, changes


def _line_ending(lines: list[str]) -> str:
    """The line ending of the first line (a rewrite keeps the file's)."""
    if lines and lines[0].endswith("\r\n"):
        return "\r\n"
    return "\r" if lines and lines[0].endswith("\r") else "\n"


def _replace_claim(lines: list[str], site, block: list[str], ending: str, new_end: str | None = None) -> None:
    """Give ``site``'s print the claim lines ``block`` and the last line ``new_end`` (default: its
    code with its note alone, no claim)."""
    if new_end is None:
        end_text = lines[site.end_line - 1].rstrip("\r\n")
        code = end_text[: site.comment_col].rstrip() if site.comment_col is not None else end_text.rstrip()
        new_end = f"{code}  # -> {site.note}" if site.note else code
    first_block = site.end_line  # index (0-based) of the first '#>' line
    lines[first_block: first_block + len(site.block)] = [b + ending for b in block]
    lines[site.end_line - 1] = new_end + ending


def _verify_rewrite(source: str, new_source: str, prints: list[Printed]) -> None:
    """Refuse a rewrite that would change the code, or whose claims would not hold on re-reading."""
    try:
        old_tree, new_tree = ast.parse(source), ast.parse(new_source)
    except SyntaxError as exc:
        raise ClaimSyntaxError(exc.lineno or 0, f"rewriting claims would break the snippet: {exc.msg}") from exc
    if ast.dump(old_tree) != ast.dump(new_tree):
        raise ClaimSyntaxError(0, "the printed text cannot be written as a comment without changing the code "
                                  "(it holds a line break Python would read); print its repr() instead")
    moved = remap_prints(source, new_source, prints)
    bad = [p for p in check("snippet", new_source, moved) if "never ran" not in p.message]
    if bad:
        raise ClaimSyntaxError(bad[0].line, "the printed text cannot be written as a claim that reads back the "
                                            f"same ({bad[0].message}); print its repr() instead")
