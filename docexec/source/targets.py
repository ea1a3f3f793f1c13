"""An include line's target (``"<chapter>/<example>.py"`` or ``...:<section>``) resolved to a file
under the include folders, or the reason it names none."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from docexec.source.snippets import sections, split_target


@dataclass(frozen=True)
class Target:
    """What an include's target names: ``file`` (relative to the project, "" when it names none),
    the ``section`` of it (or None), and ``reason``: why it cannot be included ("" when it can)."""

    file: str
    section: str | None
    reason: str = ""


def resolve(target: str, root: str, folders: dict[str, str]) -> Target:
    """``target`` looked up in the include folders ``folders`` (each, relative to ``root``, with its
    real path): the first folder that holds it counts, but not when it escapes that folder."""
    name, section = split_target(target)
    include_paths = list(folders)
    if re.search(r":\d", target):
        return Target("", None, f"includes {target!r} by line numbers, which break silently when the file changes; "
                                "mark a named section ('# --8<-- [start:name]') and include that")
    file, outside = "", False
    for base in include_paths:
        if os.path.isfile(os.path.join(root, base, name)):
            if _within(folders[base], name):
                file = f"{base}/{name}"
                break
            outside = True
    if not file and outside:
        return Target("", None, f"includes {name!r}, which is outside the include folders "
                                f"({' and '.join(include_paths)}); include files inside them")
    if not file:
        return Target("", None, f"includes {name!r}, which is not a file under {' or '.join(include_paths)}")
    text, reason = _read_text(os.path.join(root, file))
    if reason:
        return Target(file, section, f"includes {name!r}, which {reason}")
    if section and section not in sections(text):
        return Target(file, section, f"includes section {section!r} of {name!r}, which has no "
                                     f"'# --8<-- [start:{section}]' marker")
    return Target(file, section)


def _within(folder: str, name: str) -> bool:
    """Whether ``name``, resolved against the include folder whose real path is ``folder``, stays
    inside that folder."""
    return os.path.realpath(os.path.join(folder, name)).startswith(os.path.join(folder, ""))


def _read_text(path: str) -> tuple[str, str]:
    """A file's text, or "" and why it cannot be included (not UTF-8, unreadable)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return "", f"cannot be read ({exc.strerror})"
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError as exc:
        return "", (f"is not UTF-8 text (byte 0x{data[exc.start]:02x} on line {data[:exc.start].count(10) + 1}); "
                    "save it as UTF-8")


