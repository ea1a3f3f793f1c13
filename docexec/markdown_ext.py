"""A Python-Markdown extension that shows each included snippet's output right under its code.

A page includes a snippet the usual ``pymdownx.snippets`` way, in a plain ``python`` fence::

    ```python
    --8<-- "computational-graph/opt_in.py"
    ```

and this extension adds, after that fence, a ``text`` block titled "Output" holding what that
snippet (or that section of it) wrote when it ran in this build. Pages need no other syntax, so they
still read well on GitHub and in any tool that knows ``pymdownx.snippets``.

It also puts one line under the page title saying which PyTorch and Python produced the outputs,
read from the run itself.

The extension depends on Python-Markdown only (not on MkDocs), so any generator that runs
Markdown extensions can use it. Register it after nothing in particular: its preprocessor runs
before ``pymdownx.snippets`` (priority 32) so that it still sees the include lines.

Options:
    root: the repository root (default: the current directory).
    base_path: the folder includes are relative to, relative to ``root`` (default ``snippets``);
        the same folder as ``pymdownx.snippets``' ``base_path``.
    versions_note: put the "outputs produced by" line under the title (default True).
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown import Extension
from markdown.preprocessors import Preprocessor

from .session import get_session
from .snippets import INCLUDE

_FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*)$")
_TITLE = re.compile(r"^#[ \t]+\S")


class SnippetOutputPreprocessor(Preprocessor):
    """Inserts an output block after every fence that only includes snippets."""

    def __init__(self, md, root: Path, base_path: str, versions_note: bool):
        super().__init__(md)
        self.root = root
        self.base_path = base_path
        self.versions_note = versions_note

    def run(self, lines: list[str]) -> list[str]:
        session = get_session(self.root, self.base_path)
        out: list[str] = []
        included = False
        index = 0
        while index < len(lines):
            line = lines[index]
            opening = _FENCE_OPEN.match(line)
            if not opening:
                out.append(line)
                index += 1
                continue
            start = index
            indent, fence = opening.group("indent"), opening.group("fence")
            close = re.compile(rf"^{re.escape(indent)}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
            end = index + 1
            while end < len(lines) and not close.match(lines[end]):
                end += 1
            out.extend(lines[start: end + 1])
            index = end + 1
            body = [b for b in lines[start + 1: end] if b.strip()]
            language = opening.group("info").split()[0] if opening.group("info").split() else ""
            targets = [INCLUDE.match(b) for b in body]
            if language not in ("python", "py") or not body or not all(targets):
                continue
            included = True
            text = "\n".join(session.output(m.group("target")) for m in targets if m).strip("\n")
            if text:
                out.extend(_output_block(text, indent))
        if included and self.versions_note:
            out = _add_versions_note(out, session.versions())
        return out


def _output_block(text: str, indent: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    body = [f"{indent}{line}" if line else "" for line in text.split("\n")]
    return ["", f'{indent}{fence} text title="Output"', *body, f"{indent}{fence}", ""]


def _add_versions_note(lines: list[str], versions: dict[str, str]) -> list[str]:
    if not versions:
        return lines
    note = (f'<p class="docexec-versions">Every output on this page was produced when the page was '
            f'built, by PyTorch {versions.get("torch", "?")} on Python {versions.get("python", "?")}.</p>')
    for number, line in enumerate(lines):
        if _TITLE.match(line):
            return lines[: number + 1] + ["", note, ""] + lines[number + 1:]
    return ["", note, ""] + lines


class SnippetOutputExtension(Extension):
    """Registers ``SnippetOutputPreprocessor``; see the module docstring for the options."""

    def __init__(self, **kwargs):
        self.config = {
            "root": [".", "repository root"],
            "base_path": ["snippets", "folder that includes are relative to"],
            "versions_note": [True, "add the 'outputs produced by' line under the title"],
        }
        super().__init__(**kwargs)

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(
            SnippetOutputPreprocessor(md, Path(self.getConfig("root")).resolve(), self.getConfig("base_path"),
                                      bool(self.getConfig("versions_note"))),
            "docexec_output",
            34,
        )


def makeExtension(**kwargs):  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used when the extension is named as ``docexec.markdown_ext`` in a config."""
    return SnippetOutputExtension(**kwargs)
