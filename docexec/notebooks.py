"""A chapter as a Jupyter notebook, made from the same page and snippets, with this build's outputs.

The page's prose becomes Markdown cells and each snippet include a code cell whose outputs are what
the snippet printed in this build (stdout and stderr streams, addresses shown as ``0x…``), followed
by its autograd graph as an SVG image. Material-only syntax is turned into plain Markdown that
Jupyter renders: admonitions become a bold title over their text, reference-style links are
inlined (Jupyter resolves them only within one cell), links to other pages point to the published
site, and concept diagrams become SVG attachments.

The result is an ``nbformat`` 4.5 notebook as a ``dict`` (https://nbformat.readthedocs.io/en/latest/format_description.html);
``dumps`` gives its JSON text, the same bytes for the same inputs.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from . import claims, figures
from .markdown_ext import _DIAGRAM, fenced_lines, include_fences
from .session import Session
from .snippets import included_text, sections, split_target

_ADMONITION = re.compile(r'^(?P<indent>[ \t]*)(?:!!!|\?\?\?\+?)[ \t]+\w+(?:[ \t]+"(?P<title>[^"]*)")?[ \t]*$')
_REF_DEF = re.compile(r"^\[(?P<ref>[^\]]+)\]:[ \t]+(?P<url><?\S+?>?)[ \t]*$")
_REF_USE = re.compile(r"\[(?P<text>[^\]]+)\]\[(?P<ref>[^\]]*)\]")
_PAGE_LINK = re.compile(r"\]\((?P<page>[\w./-]+)\.md(?P<anchor>#[\w-]+)?\)")


def snippet_code(session: Session, target: str) -> str:
    """The code a reader sees for an include target: the whole file without section markers, or a section."""
    name, section = split_target(target)
    return included_text(session.source(f"{session.folder}/{name}"), section)


def _outputs(session: Session, target: str) -> list[dict]:
    name, section = split_target(target)
    path = f"{session.folder}/{name}"
    result = session.results.get(path)
    if result is None:  # execution switched off: the notebook has no outputs
        return []
    span = sections(session.source(path)).get(section) if section else None
    streams: list[dict] = []
    for line, text, stream in result.chunks:
        if span and not span[0] <= line <= span[1]:
            continue
        text = claims.normalize(text)
        if streams and streams[-1]["name"] == stream:
            streams[-1]["text"] += text
        else:
            streams.append({"output_type": "stream", "name": stream, "text": text})
    return streams


def _graph_output(session: Session, name: str) -> list[dict]:
    result = session.results.get(f"{session.folder}/{name}")
    if result is None or not result.graph_dot:
        return []
    svg = figures.render_svg(result.graph_dot, "nb", session.root / figures.SVG_CACHE)
    return [{"output_type": "display_data", "metadata": {},
             "data": {"image/svg+xml": svg, "text/plain": f"Autograd graph: {result.graph_alt}"}}]


def _inline_references(text: str) -> str:
    refs = {}
    kept = []
    for line in text.split("\n"):
        match = _REF_DEF.match(line)
        if match:
            refs[match.group("ref").lower()] = match.group("url").strip("<>")
        else:
            kept.append(line)
    text = "\n".join(kept)

    def use(match: re.Match) -> str:
        ref = (match.group("ref") or match.group("text")).lower()
        return f"[{match.group('text')}]({refs[ref]})" if ref in refs else match.group(0)

    return _REF_USE.sub(use, text)


def _plain_markdown(lines: list[str]) -> list[str]:
    """Admonitions -> a bold title and their text, dedented (fenced lines are left to the caller)."""
    out, inside = [], None
    fenced = fenced_lines(lines)
    for number, line in enumerate(lines):
        match = _ADMONITION.match(line) if number not in fenced else None
        if match:
            inside = len(match.group("indent")) + 4
            out.append(f"**{match.group('title') or 'Note'}**")
            continue
        if inside is not None and line.strip() and len(line) - len(line.lstrip()) < inside:
            inside = None
        out.append(line[inside:] if inside is not None and line.startswith(" " * inside) else line)
    return out


def _other_includes(lines: list[str], root: Path, include_paths: list[str], skip: set[int]) -> dict:
    """Python fences that include files which are not snippets: start line -> (end line, code)."""
    from .markdown_ext import _fences
    from .snippets import INCLUDE

    found = {}
    for start, end, _, info in _fences(lines):
        if start in skip or not info or info[0] not in ("python", "py"):
            continue
        matches = [INCLUDE.match(b) for b in lines[start + 1: end] if b.strip()]
        if not matches or not all(matches):
            continue
        parts = []
        for match in matches:
            name, section = split_target(match.group("target"))
            path = next((Path(root) / b / name for b in include_paths if (Path(root) / b / name).is_file()), None)
            if path is None:
                break
            parts.append(included_text(path.read_text(encoding="utf-8"), section))
        else:
            found[start] = (end, "\n\n".join(parts))
    return found


def chapter_notebook(page: Path, session: Session, site_url: str = "", include_paths: list[str] | None = None) -> dict:
    """Build the notebook of one chapter page.

    Args:
        page: the page's Markdown file (``docs/<chapter>.md``).
        session: a session that has run the snippets, or is running them (``Session.start``):
            their results give the outputs; this waits for the chapter's own.
        site_url: the published site's address; links to other pages are made absolute with it
            (relative links stay as they are when it is empty).
        include_paths: every folder ``--8<--`` includes may come from, relative to the repository
            root (as ``pymdownx.snippets``' ``base_path``); includes of files that are not
            snippets (no output) become code cells too.

    Returns:
        The notebook as a ``dict`` in nbformat 4.5.

    Raises:
        GraphvizError: a graph could not be drawn (``figures.render_many``).
        ExecutionError: the run failed (``Session.wait``).
    """
    text = _inline_references(Path(page).read_text(encoding="utf-8"))
    if site_url:
        base = site_url.rstrip("/") + "/"
        text = _PAGE_LINK.sub(lambda m: f"]({base}{m.group('page')}/{m.group('anchor') or ''})", text)
    lines = _plain_markdown(text.split("\n"))
    fences = {start: (end, targets) for start, end, _, targets in include_fences(lines, session.root, session.folder)}
    paths = [f"{session.folder}/{split_target(t)[0]}" for _, targets in fences.values() for t in targets]
    session.ensure_run(paths)  # a run under way: this chapter's snippets only
    drawn = [session.results[p].graph_dot for p in paths if p in session.results and session.results[p].graph_dot]
    figures.render_many(drawn, cache_dir=session.root / figures.SVG_CACHE)  # in parallel, before the cells
    versions = session.versions()
    cells: list[dict] = []
    prose: list[str] = []
    attachments: dict = {}

    def flush() -> None:
        body = "\n".join(prose).strip("\n")
        if body:
            cell = {"cell_type": "markdown", "id": f"cell-{len(cells)}", "metadata": {}, "source": body}
            if attachments:
                cell["attachments"] = dict(attachments)
            cells.append(cell)
        prose.clear()
        attachments.clear()

    fenced = fenced_lines(lines)
    others = _other_includes(lines, session.root, include_paths or [], set(fences))
    index = 0
    while index < len(lines):
        line = lines[index]
        if index in fences:
            end, targets = fences[index]
            flush()
            for target in targets:
                cells.append({"cell_type": "code", "id": f"cell-{len(cells)}", "metadata": {},
                              "execution_count": None, "source": snippet_code(session, target),
                              "outputs": _outputs(session, target) + _graph_output(session, split_target(target)[0])})
            index = end + 1
            continue
        other = others.get(index)
        if other is not None:
            flush()
            end, code = other
            cells.append({"cell_type": "code", "id": f"cell-{len(cells)}", "metadata": {},
                          "execution_count": None, "source": code, "outputs": []})
            index = end + 1
            continue
        diagram = _DIAGRAM.match(line) if index not in fenced else None
        if diagram:
            dot = (session.root / diagram.group("path")).read_text(encoding="utf-8")
            svg = figures.render_svg(dot, "nb", session.root / figures.SVG_CACHE)
            name = Path(diagram.group("path")).with_suffix(".svg").name
            attachments[name] = {"image/svg+xml": base64.b64encode(svg.encode()).decode()}
            prose.append(f"![{diagram.group('alt')}](attachment:{name})")
            if diagram.group("caption"):
                prose.append(f"\n*{diagram.group('caption')}*")
        else:
            prose.append(line)
        if index == 0 and line.startswith("# ") and versions:
            prose.append(f"\n*This notebook was generated from the site's page and run with PyTorch "
                         f"{versions.get('torch')} on Python {versions.get('python')}; the outputs below "
                         "are that run's. Each code cell runs on its own.*")
        index += 1
    flush()
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def dumps(notebook: dict) -> str:
    """The notebook as JSON text (sorted keys, one-space indent, as Jupyter writes it)."""
    return json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
