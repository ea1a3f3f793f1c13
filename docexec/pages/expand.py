"""A page's Markdown as a reader sees it: snippet includes expanded and outputs inserted.

Used by the tests (pytest-codeblocks runs every Python block of the expanded page) and by anything
that needs a page's text without building the site.
"""

from __future__ import annotations

from pathlib import Path

from docexec.pages.render import include_output, output_markdown
from docexec.run.results import Results
from docexec.source.includes import parse_page
from docexec.source.snippets import included_text, indented


def expand(page: Path, root: Path, include_paths: list[str], results: Results | None = None) -> str:
    """Return the text of ``page`` with every ``--8<--`` include replaced by the file it names and,
    given ``results``, each running fence followed by its output block as a ``text`` fence.

    Args:
        page: a Markdown file (``docs/<page>.md``).
        root: the repository root.
        include_paths: every folder includes may come from, relative to ``root`` (the
            ``base_path`` list of ``pymdownx.snippets``).
        results: this build's results (``Runner.wait``); None leaves outputs out.

    Raises:
        pymdownx.snippets.SnippetMissingError: an include names a missing file or section.
        UnknownTargetError: an include names a snippet without a result.
    """
    import markdown
    from pymdownx.snippets import SnippetExtension

    root = Path(root).resolve()
    text = Path(page).read_text(encoding="utf-8")
    record = parse_page(text, str(page), str(root), include_paths, results.folder if results else "snippets")
    after = {fence.end: fence for fence in record.fences if fence.runs} if results is not None else {}
    shown = {i.line - 1: i for fence in record.fences if fence.runs for i in fence.includes if i.file}
    lines: list[str] = []
    for index, line in enumerate(record.lines):
        if index in shown:  # the code as the page shows it (``included_text``)
            indent = line[: len(line) - len(line.lstrip())]
            code = included_text((root / shown[index].file).read_text(encoding="utf-8"), shown[index].section)
            lines.extend(indented(code, indent))
            continue
        lines.append(line)
        if index in after:
            out = include_output(results, after[index])
            if out.text:
                lines.extend(output_markdown(out.text, after[index].indent))
    md = markdown.Markdown(extensions=[SnippetExtension(base_path=[str(root / p) for p in include_paths],
                                                        check_paths=True, dedent_subsections=True)])
    return "\n".join(md.preprocessors["snippet"].run(lines))
