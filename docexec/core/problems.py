"""The one error shape of the build machinery: a path, a line and a one-line reason."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """Something that must fail the build, located in a source file.

    Attributes:
        path: the file, relative to the repository root (``snippets/<chapter>/<example>.py``).
        line: 1-based line in that file (0 when no line applies).
        message: one line saying what is wrong and, where it helps, what to do.
        detail: optional extra lines (a traceback, a diff) shown under the message.
    """

    path: str
    line: int
    message: str
    detail: str = ""

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"
