"""Chapter notebooks: made from the page and its snippets, they run top to bottom in a real Jupyter
kernel and print what the build printed."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient

from docexec import build as builds
from docexec import claims
from docexec.notebooks import chapter_notebook, dumps

from .conftest import ROOT, snippet_base_paths

CHAPTERS = sorted((ROOT / "docs").glob("[0-9][0-9]-*.md"))


@pytest.fixture(scope="module")
def session():
    """A build of the site's pages (not begun: nothing registered), with every snippet's result."""
    build = builds.Build(builds.runner_for(ROOT), snippet_base_paths())
    build.runner.start()
    build.results = build.runner.wait()
    return build


def notebook_of(build, page):
    record = build.page(page.read_text(encoding="utf-8"), f"docs/{page.name}")
    return chapter_notebook(record, build.results, build.drawings, "https://example.invalid/")


def stdout_of(cell: dict) -> str:
    return claims.normalize("".join(o.get("text", "") for o in cell.get("outputs", [])
                                    if o.get("output_type") == "stream" and o.get("name") == "stdout"))


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_notebook_runs_in_a_kernel_and_prints_what_the_build_printed(session, page, tmp_path):
    built = notebook_of(session, page)
    notebook = nbformat.reads(dumps(built), as_version=4)
    nbformat.validate(notebook)
    expected = [stdout_of(cell) for cell in notebook.cells if cell.cell_type == "code"]
    counts = [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"]
    assert any(expected), "the notebook carries the build's outputs"
    assert any(o.get("output_type") == "display_data" for c in notebook.cells if c.cell_type == "code"
               for o in c.outputs), "and its graph figures"
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=False,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    executed = [stdout_of(cell) for cell in notebook.cells if cell.cell_type == "code"]
    assert executed == expected
    assert [cell.execution_count for cell in notebook.cells if cell.cell_type == "code"] == counts  # no "In [ ]:"


def test_notebook_title_says_notebook_and_links_back_to_its_chapter(session):
    built = notebook_of(session, CHAPTERS[0])
    first = built["cells"][0]["source"]
    assert first.startswith(f"# {CHAPTERS[0].read_text(encoding='utf-8').splitlines()[0][2:]} (notebook)\n")
    assert f"(https://example.invalid/{CHAPTERS[0].stem}/)" in first


def test_a_notebook_pages_svg_images_become_inline_labelled_figures():
    import base64

    from docexec.notebooks import inline_figures

    def image(svg: str, alt: str = "") -> str:
        data = base64.b64encode(svg.encode()).decode()
        return f'<img{f" alt={chr(34)}{alt}{chr(34)}" if alt else ""} src="data:image/svg+xml;base64,{data}">'

    labelled = '<svg role="img" aria-label="Autograd graph: x" width="8pt"><g id="nb-graph0"></g></svg>'
    concept = '<svg width="8pt"><g id="nb-graph0"></g></svg>'
    html = inline_figures(f"<div>{image(labelled)}</div><p>{image(concept, 'x &amp; y')}</p>")
    assert "<img" not in html and html.count('<figure class="docexec-figure">') == 2
    assert 'aria-label="Autograd graph: x"' in html and 'aria-label="x &amp; y"' in html
    assert 'id="nb0-graph0"' in html and 'id="nb1-graph0"' in html  # ids stay unique on the page


def test_notebook_text_is_plain_jupyter_markdown(session):
    built = notebook_of(session, CHAPTERS[0])
    markdown = "\n".join(c["source"] for c in built["cells"] if c["cell_type"] == "markdown")
    assert "!!! warning" not in markdown and "**Pitfall 1" in markdown  # admonitions became bold titles
    assert "][" not in markdown  # reference links were inlined
    assert "(attachment:tensors-vs-nodes.svg)" in markdown  # the concept diagram travels with it
    assert dumps(built) == dumps(notebook_of(session, CHAPTERS[0]))  # same bytes every time
