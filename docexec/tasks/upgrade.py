"""``make upgrade TORCH=<version>``: move the course to another PyTorch in one command.

It runs every example on that PyTorch (the side environment of ``make drift``,
``docexec.versions.sideenv``), rewrites the claims and DOT files that no longer hold as ``make fix`` does
(``docexec.tasks.fix.fix``, run by that environment's worker), then changes the pin wherever a file
names it (``pin_changes``) and removes the drift record, which described this very move. Nothing
is committed: the author reviews the diff, and the next ``make`` installs the new pin into
``.venv``. If the examples cannot be run there, no file is touched.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

from docexec.core.files import write_atomically
from docexec.run.runner import Runner
from docexec.source.snippets import SNIPPETS_DIR, discover, split_lines
from docexec.versions import drift, sideenv

#: The files that may name the pinned PyTorch (glob patterns, relative to the root): the
#: requirements, the workflows, the README and the pages.
PIN_FILES = ("requirements.txt", ".github/workflows/*.yml", ".github/workflows/*.yaml", "README.md", "docs/**/*.md")
#: A line carrying this comment keeps its version: a measurement made on a stated PyTorch.
KEEP = "<!-- pin: keep -->"


@dataclass(frozen=True)
class PinChange:
    """One line that names the pinned version: its file, 1-based line, and its text before and after."""

    path: str
    line: int
    before: str
    after: str


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def pin_changes(root: Path, old: str, new: str) -> list[PinChange]:
    """Every line of ``PIN_FILES`` that names PyTorch ``old`` and what it becomes with ``new``.

    A line names it by the whole version (``torch==2.13.0``, ``PyTorch 2.13.0``, ``(2.13.0)``) or,
    after the word PyTorch, by its minor version (``PyTorch 2.13 warns``). Lines with ``KEEP`` stay.
    """
    whole = re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w]|\.\d)")
    minor = re.compile(rf"(?<=PyTorch ){re.escape(_minor(old))}(?!\.?\d)")
    changes = []
    for path in _pin_files(root):
        for number, line in enumerate(split_lines((Path(root) / path).read_text(encoding="utf-8")), start=1):
            if KEEP in line:
                continue
            after = minor.sub(_minor(new), whole.sub(new, line))
            if after != line:
                changes.append(PinChange(path, number, line, after))
    return changes


def _pin_files(root: Path) -> list[str]:
    root = Path(root)
    return sorted({p.relative_to(root).as_posix() for pattern in PIN_FILES for p in root.glob(pattern) if p.is_file()})


def apply(root: Path, changes: list[PinChange]) -> None:
    """Write ``changes`` into their files (each file atomically, its line endings kept)."""
    by_file: dict[str, dict[int, PinChange]] = {}
    for change in changes:
        by_file.setdefault(change.path, {})[change.line] = change
    for path, lines in by_file.items():
        target = Path(root) / path
        with open(target, encoding="utf-8", newline="") as handle:
            text = handle.read()
        rows = split_lines(text, keepends=True)
        for number, change in lines.items():
            ending = rows[number - 1][len(rows[number - 1].rstrip("\r\n")):]
            rows[number - 1] = change.after + ending
        write_atomically(target, "".join(rows))


def upgrade(root: Path, torch: str, python: str | None = None, out=sys.stdout) -> int:
    """Move the course to PyTorch ``torch`` (see the module docstring), printing each change.

    Args:
        root: the repository root.
        torch: the version to pin.
        python: an interpreter with that torch (default: the side environment, made if missing).

    Returns:
        0 when every example runs and every claim holds on ``torch``; 1 when some are left with
        problems (printed; the author fixes them); 2 when nothing could be done (printed).

    Raises:
        ExecutionError: the worker could not run the examples (no file was touched).
    """
    from docexec.tasks.fix import fix

    pin = sideenv.pinned(root, "torch")
    if pin is None:
        print("docexec upgrade: requirements.txt pins no torch (a line torch==<version>)", file=out)
        return 2
    old = pin.split("==", 1)[1]
    if old == torch:
        print(f"docexec upgrade: the course already pins PyTorch {torch}", file=out)
        return 0
    if python is None:
        try:
            python = sideenv.ensure(root, torch, out)
        except sideenv.SideEnvError as exc:
            print(f"docexec upgrade: cannot make the PyTorch {torch} environment: {exc}", file=out)
            return 2
    paths = discover(root)
    left = fix(Runner(root, SNIPPETS_DIR, python=python), paths, out)  # no cache: keys name this torch
    changes = pin_changes(root, old, torch)
    apply(root, changes)
    for change in changes:
        print(f"{change.path}:{change.line}: {change.before.strip()}  =>  {change.after.strip()}", file=out)
    record = Path(root) / drift.RECORD
    if record.is_file():
        record.unlink()
        print(f"{drift.RECORD}: removed (it compared the old pin with another version; `make drift "
              "TORCH=<next>` writes the next one)", file=out)
    print(f"docexec upgrade: PyTorch {old} -> {torch}: the pin changed on {len(changes)} line(s) of "
          f"{len({c.path for c in changes})} file(s); {len(paths)} snippet(s) checked, {left} still with problems. "
          "Review `git diff`; the next `make` installs the new pin into .venv.", file=out)
    return 1 if left else 0
