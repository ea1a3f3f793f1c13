"""Where snippets live and how pages name them.

A snippet is a plain Python file under ``snippets/`` (``snippets/<chapter>/<example>.py``) that runs
with ``python snippets/<chapter>/<example>.py``. Files whose name starts with ``_`` are helpers that
snippets import; they are not run on their own. A page includes a snippet, or a named section of
it, with ``pymdownx.snippets``: ``--8<-- "<chapter>/<example>.py"`` or
``--8<-- "<chapter>/<example>.py:<section>"``; sections are marked in the snippet by
``# --8<-- [start:<section>]`` and ``# --8<-- [end:<section>]`` lines (the pymdownx syntax,
https://facelessuser.github.io/pymdown-extensions/extensions/snippets/#snippet-sections).
"""

from __future__ import annotations

import io
import os
import posixpath
import re
import textwrap
import tokenize
from pathlib import Path

from docexec.core.problems import Problem

SNIPPETS_DIR = "snippets"
#: The longest line a snippet may have, in characters: a page's code block shows about 83 at
#: 1280 px, so a line within this limit is never cut off there, claim and note included.
LINE_LIMIT = 80

# The section marker and include syntax of pymdownx.snippets 13.x (its own regular expressions,
# reduced to the forms this project uses).
_SECTION = re.compile(r"^.*?-{1,}8<-{1,}[ \t]+\[[ \t]*(?P<type>start|end)[ \t]*:[ \t]*"
                      r"(?P<name>[a-z][-_0-9a-z]*)[ \t]*\].*?$")
INCLUDE = re.compile(r"^(?P<indent>[ \t]*)-{1,}8<-{1,}[ \t]+(?P<q>[\"'])(?P<target>[^\"']+)(?P=q)[ \t]*$")

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def split_lines(text: str, keepends: bool = False) -> list[str]:
    """Split ``text`` into lines the way Python reads source: at ``\\n``, ``\\r\\n`` and ``\\r`` only.

    (``str.splitlines`` also splits at form feeds, ``\\x1c``-``\\x1e``, U+2028 and others, which
    Python's tokenizer does not, so line numbers would disagree with tracebacks.)
    """
    lines = _LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def read_source(path: Path) -> str:
    """A snippet's text exactly as stored (line endings kept; a UTF-8 byte-order mark dropped, as Python does)."""
    with open(path, "rb") as handle:
        return decode_source(handle.read())


def decode_source(data: bytes) -> str:
    """The text of a snippet's bytes as ``read_source`` gives it.

    Raises:
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    return data.decode("utf-8-sig")


def files_under(root: Path, folder: str, suffix: str) -> list[str]:
    """Every file under ``root/folder`` whose name ends with ``suffix``, as POSIX paths relative to
    ``root`` (no ``./``), in no particular order; ``__pycache__`` is skipped and, as ``Path.rglob``
    does, symbolic links to directories are not followed. (Strings rather than ``Path`` objects:
    each build lists every snippet and diagram, and pathlib's parsing of each path cost more
    than the listing itself.) A missing folder gives an empty list."""
    found = []
    for directory, subdirectories, names in os.walk(os.path.join(root, folder)):
        subdirectories[:] = [name for name in subdirectories if name != "__pycache__"]
        relative = os.path.relpath(directory, root).replace(os.sep, "/")
        prefix = "" if relative == "." else f"{relative}/"
        found.extend(prefix + name for name in names if name.endswith(suffix))
    return found


def discover(root: Path, folder: str = SNIPPETS_DIR) -> list[str]:
    """All runnable snippets under ``root/folder``, as sorted POSIX paths relative to ``root``:
    ``*.py`` files whose name does not start with ``_`` (``files_under``)."""
    return sorted(path for path in files_under(root, folder, ".py") if not path.rpartition("/")[2].startswith("_"))


def sections(source: str) -> dict[str, tuple[int, int]]:
    """Named sections of a snippet: name -> (first line, last line) of the code between the markers.

    Lines are 1-based and exclude the marker lines. A section without an end marker runs to the
    end of the file.
    """
    starts: dict[str, int] = {}
    found: dict[str, tuple[int, int]] = {}
    lines = split_lines(source)
    for number, line in enumerate(lines, start=1):
        match = _SECTION.match(line)
        if not match:
            continue
        name = match.group("name")
        if match.group("type") == "start":
            starts.setdefault(name, number + 1)
        elif name in starts and name not in found:
            found[name] = (starts[name], number - 1)
    for name, start in starts.items():
        found.setdefault(name, (start, len(lines)))
    return found


def included_text(source: str, section: str | None = None) -> str:
    """What a page and its notebook show of ``source``: the whole file without its section marker
    lines (as ``pymdownx.snippets`` includes it) and without its ``# docexec:`` option lines (they
    are for the build, not the reader, and change nothing when the code runs), or the dedented lines
    of one section (with ``dedent_subsections: true``).

    Raises:
        KeyError: ``section`` is not marked in ``source``.
    """
    lines = split_lines(source)
    if section is None:
        shown = (line for line in lines if not _SECTION.match(line) and not _OPTION_LINE.match(line))
        return "\n".join(shown).strip("\n")
    first, last = sections(source)[section]
    shown = [line for line in lines[first - 1: last] if not _OPTION_LINE.match(line)]
    return textwrap.dedent("\n".join(shown)).strip("\n")


def indented(code: str, indent: str) -> list[str]:
    """``code``'s lines, each put at ``indent`` (empty lines stay empty), as an include line that
    stood at that indentation in a page shows it."""
    return [indent + text if text else "" for text in code.split("\n")]


def long_lines(path: str, source: str, limit: int = LINE_LIMIT) -> list[Problem]:
    """One problem per line of ``source`` longer than ``limit`` characters (``path`` names the file
    in it): the rule every snippet, and every file a page shows, keeps so that readers see each
    line whole, the notes after `` -> `` included. Option lines are not shown (``included_text``)
    and may be longer."""
    return [Problem(path, number, f"line is {len(line)} characters; the limit is {limit}, so that the line "
                                  "shows whole in a page's code block: break the code, move the claim into '#>' "
                                  "lines below the print, or put the note on a comment line above it")
            for number, line in enumerate(split_lines(source), start=1)
            if len(line) > limit and not _OPTION_LINE.match(line)]


def split_target(target: str) -> tuple[str, str | None]:
    """``"ch/x.py:forward"`` -> ``("ch/x.py", "forward")``; ``"ch/x.py"`` -> ``("ch/x.py", None)``.
    The path is normalised as ``pymdownx.snippets`` reads it (``"ch/./x.py"`` is ``"ch/x.py"``)."""
    path, sep, section = target.partition(":")
    if sep and re.fullmatch(r"[a-z][-_0-9a-z]*", section):
        return posixpath.normpath(path), section
    return posixpath.normpath(target), None


_OPTIONS = re.compile(r"^(?P<indent>[ \t]*)#[ \t]*docexec:[ \t]*(?P<items>.*)$")
#: An option line as the build reads it (at the first column), which pages do not show.
_OPTION_LINE = re.compile(r"^#[ \t]*docexec:")
#: A name ``draw=`` accepts: a global of the example, or an attribute path from one (``model.weight``).
_DRAWN_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: The numeric options: each one's key in the dict ``options`` returns, and the range of the finite number it takes.
_KNOWN = {"timeout": ("timeout", 0.1, 3600.0, "seconds"), "memory": ("memory_mb", 16.0, 1_048_576.0, "MiB")}


def _figure(line: int, value: str) -> str:
    kinds = value.split("+")
    if value != NO_FIGURE and (any(kind not in FIGURE_KINDS for kind in kinds) or len(set(kinds)) != len(kinds)):
        raise OptionsError(line, f"docexec option figure takes {', '.join(FIGURE_KINDS)} (several joined with '+', "
                                 f"each once), or {NO_FIGURE}; got {value!r}")
    if FORWARD in kinds and len(kinds) > 1:
        raise OptionsError(line, f"docexec option figure={FORWARD} draws forward mode, not the graph: it joins "
                                 f"with no other kind; got {value!r}")
    return value


def _draw(line: int, value: str) -> str:
    names = value.split("+")
    if not all(_DRAWN_NAME.fullmatch(name) for name in names) or len(set(names)) != len(names):
        raise OptionsError(line, "docexec option draw takes the names the figure draws, such as y or model.weight "
                                 f"(several joined with '+', each once); got {value!r}")
    return value


def _comments(source: str) -> set[int] | None:
    """The lines (1-based) that hold a comment, as Python's tokenizer reads ``source``; None if it
    cannot (the snippet will fail to run and say why): then every line counts."""
    try:
        return {token.start[0] for token in tokenize.generate_tokens(io.StringIO(source, newline=None).readline)
                if token.type == tokenize.COMMENT}
    except (tokenize.TokenError, SyntaxError):
        return None


def _may_span_lines(source: str) -> bool:
    """Whether a string literal in ``source`` may go on over a line break: only a triple-quoted one
    or a line continued with a backslash can (otherwise a line that starts with ``#`` is a comment,
    and Python's tokenizer need not read the file)."""
    return '"""' in source or "'''" in source or "\\\n" in source or "\\\r" in source


class OptionsError(ValueError):
    """A ``# docexec:`` line that cannot be used, at ``line`` (1-based)."""

    def __init__(self, line: int, message: str):
        self.line = line
        super().__init__(message)


#: What a figure may show beyond the graph's structure (``docexec.graphs.teach.KINDS``).
FIGURE_KINDS = ("gradients", "saved", "versions", "hooks", "cuts", "tangents")
#: ``figure=tangents``: a figure of the operations forward mode ran, instead of the autograd graph.
FORWARD = "tangents"
#: ``figure=none``: the example gets no figure, whatever graph its tensors hold at its end.
NO_FIGURE = "none"


def options(source: str) -> dict[str, float | str]:
    """Per-snippet options from ``# docexec: timeout=120 memory=8192 figure=gradients`` comment
    lines at the start of a line: ``timeout`` in seconds (0.1 to 3600), ``memory`` in MiB of memory
    above the worker's (16 to 1048576), ``figure`` what the example's figure shows besides the
    graph's structure (``FIGURE_KINDS``, several joined with ``+``), or ``none`` for no figure,
    ``draw`` the tensors the figure starts from (names of the example's globals or attribute paths
    from them, joined with ``+``; by default every tensor among its globals). Returns
    ``{"timeout": ..., "memory_mb": ..., "figure": "gradients+saved", "draw": "y+model.weight",
    "draw_line": 1}`` with only the keys given (``draw_line``: the line that gives ``draw``).

    Raises:
        OptionsError: an indented option line (it would read as code inside a block), an unknown
            key, a key given twice, a line naming no option, a value that is not a finite number in
            its range, an unknown or repeated kind of figure, a name to draw that is not a
            dotted Python name, or names to draw with ``figure=none``; the message says what is
            allowed.
            A line inside a string literal is text, not an option.
    """
    found: dict[str, float | str] = {}
    given_at: dict[str, int] = {}
    for number, items in _option_lines(source):
        for item in items:
            key, _, value = item.partition("=")
            if key in given_at:
                raise OptionsError(number, f"docexec option {key} is given twice (line {given_at[key]} and here)")
            given_at[key] = number
            name, given = _option(number, key, value)
            found[name] = given
    if "draw" in found:
        if found.get("figure") == NO_FIGURE:
            raise OptionsError(given_at["draw"], "docexec option draw names what the figure draws, and "
                                                 "figure=none asks for no figure: give one of them")
        found["draw_line"] = given_at["draw"]  # where a name that holds no tensor at the end is reported
    return found


def _option_lines(source: str):
    """``(line number, items)`` of each ``# docexec:`` comment line of ``source`` (not those inside
    a string literal).

    Raises:
        OptionsError: an indented option line, or one that names no option.
    """
    if "docexec:" not in source:  # no option line (most snippets): nothing to read line by line
        return
    comments = _comments(source) if _may_span_lines(source) else None  # None: every line counts
    for number, line in enumerate(split_lines(source), start=1):
        match = _OPTIONS.match(line)
        if not match or (comments is not None and number not in comments):
            continue  # not an option line, or inside a string: text, not an option
        if match.group("indent"):
            raise OptionsError(number, "a '# docexec:' option line must start at the first column")
        items = match.group("items").replace(",", " ").split()
        if not items:
            raise OptionsError(number, "a '# docexec:' line names no option (known: timeout, memory, figure, draw)")
        yield number, items


def _option(number: int, key: str, value: str) -> tuple[str, float | str]:
    """The option ``key=value`` of line ``number`` as ``(name, value)``.

    Raises:
        OptionsError: an unknown key, or a value out of its range.
    """
    if key == "figure":
        return "figure", _figure(number, value)
    if key == "draw":
        return "draw", _draw(number, value)
    if key not in _KNOWN:
        raise OptionsError(number, f"unknown docexec option {key!r} (known: timeout, memory, figure, draw)")
    name, low, high, unit = _KNOWN[key]
    try:
        given = float(value)
    except ValueError:
        given = float("nan")
    if not low <= given <= high:  # false for nan too
        raise OptionsError(number, f"docexec option {key} needs a number of {unit} from {low:g} to "
                                   f"{high:g}, got {value!r}")
    return name, given
