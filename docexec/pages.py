"""A page's Markdown as a reader sees it: snippet includes expanded and outputs inserted.

Used by the tests (pytest-codeblocks runs every Python block of the expanded page) and by anything
that needs a page's text without building the site.
"""

from __future__ import annotations

from pathlib import Path

import markdown

from .markdown_ext import SnippetOutputExtension


def expand(page: Path, root: Path, base_path: str = "snippets", outputs: bool = True,
           include_paths: list[str] | None = None) -> str:
    """Return the text of ``page`` with every ``--8<--`` include replaced by the file it names.

    Args:
        page: a Markdown file (``docs/<page>.md``).
        root: the repository root; ``base_path`` is relative to it.
        base_path: the folder includes are relative to (as ``pymdownx.snippets``' ``base_path``).
        outputs: also insert each snippet's output block (this runs the snippets).
        include_paths: every folder includes may come from, relative to ``root`` (the
            ``base_path`` list of ``pymdownx.snippets``; default: ``[base_path]``).

    Raises:
        pymdownx.snippets.SnippetMissingError: an include names a missing file or section.
    """
    from pymdownx.snippets import SnippetExtension

    root = Path(root).resolve()
    md = markdown.Markdown(extensions=[
        SnippetExtension(base_path=[str(root / p) for p in (include_paths or [base_path])], check_paths=True,
                         dedent_subsections=True),
        SnippetOutputExtension(root=str(root), base_path=base_path, versions_note=False),
    ])
    lines = Path(page).read_text(encoding="utf-8").split("\n")
    names = (["docexec_output"] if outputs else []) + ["snippet"]
    for name in names:
        lines = md.preprocessors[name].run(lines)
    outputs = md.preprocessors["docexec_output"]
    expanded: list[str] = []
    for line in lines:  # a marker becomes its output block as Markdown; figures are dropped
        stripped = line.strip()
        if stripped.startswith(outputs.marker):
            expanded.extend(outputs.as_markdown.get(int(stripped[len(outputs.marker):]), []))
        else:
            expanded.append(line)
    return "\n".join(expanded)
