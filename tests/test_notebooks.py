"""Chapter notebooks: made from the page and its snippets, they run top to bottom in a real Jupyter
kernel and print what the build printed."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient

from docexec.core.records import Chunk
from docexec.host import build as builds
from docexec.notebooks.chapter import chapter_notebook, dumps
from docexec.source import claims

from .conftest import ROOT, snippet_base_paths

pytestmark = pytest.mark.slow

CHAPTERS = sorted((ROOT / "docs").glob("[0-9][0-9]-*.md"))


@pytest.fixture(scope="module")
def results(warm_site):
    """A build of the site's pages (not begun: nothing registered), with every snippet's result."""
    build = builds.Build(builds.runner_for(ROOT), snippet_base_paths())
    build.runner.start()
    build.results = build.runner.wait()
    return build


def notebook_of(build, page):
    record = build.page(page.read_text(encoding="utf-8"), f"docs/{page.name}")
    return chapter_notebook(record, build.results, build.drawings, "https://example.invalid/")


def stdout_of(cell: dict) -> str:
    """What a cell printed, every number that could be an address masked (the build masks those its
    run found to be addresses; a kernel's run prints others)."""
    text = "".join(o.get("text", "") for o in cell.get("outputs", [])
                   if o.get("output_type") == "stream" and o.get("name") == "stdout")
    return claims.ADDRESS_LIKE.sub(lambda m: "0x…" if m.group(0).startswith("0x") else "…", text)


@pytest.mark.parametrize("page", CHAPTERS, ids=lambda p: p.stem)
def test_notebook_runs_in_a_kernel_and_prints_what_the_build_printed(results, page, tmp_path):
    built = notebook_of(results, page)
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
    exercises = [i for i, c in enumerate(c for c in notebook.cells if c.cell_type == "code")
                 if "exercise" in c.metadata.get("tags", [])]
    assert all(not expected[i] and counts[i] is None for i in exercises), "an exercise's cell waits to be run"
    for i in exercises:  # what the reader's run prints is what its answer says
        expected[i] = executed[i]
        answer = iter(stdout_of_answer(notebook, i).split("\n"))  # what it printed, warnings among it
        assert all(line in answer for line in executed[i].strip("\n").split("\n")), executed[i]
    assert executed == expected
    assert [c if i not in exercises else None for i, c in enumerate(
        cell.execution_count for cell in notebook.cells if cell.cell_type == "code")] == counts  # no "In [ ]:"


def stdout_of_answer(notebook, index: int) -> str:
    """What the answer after the ``index``-th code cell says the build printed, masked as ``stdout_of``."""
    cells = notebook.cells
    at = [i for i, c in enumerate(cells) if c.cell_type == "code"][index]
    answer = next(c.source for c in cells[at + 1:] if c.cell_type == "markdown" and "in this build" in c.source)
    text = re.search(r"in this build:\*\n\n(`{3,})text\n(.*?)\n\1", answer, re.S).group(2)
    return claims.ADDRESS_LIKE.sub(lambda m: "0x…" if m.group(0).startswith("0x") else "…", text)


def test_a_figure_cell_draws_every_tensor_the_build_drew_dotted_names_too(results):
    """A figure cell draws again what the page's figure starts from, names given with option draw
    (``critic.weight``, ``w.grad``) included."""
    notebook = notebook_of(results, ROOT / "docs" / "12-higher-order-gradients.md")
    cells = [c["source"] for c in notebook["cells"] if c["cell_type"] == "code" and "to_dot({" in c["source"]]
    assert any('"w": w, "w.grad": w.grad' in cell for cell in cells), cells
    assert any('"critic.weight": critic.weight, "critic.bias": critic.bias' in cell for cell in cells), cells


def test_notebook_title_says_notebook_and_links_back_to_its_chapter(results):
    built = notebook_of(results, CHAPTERS[0])
    first = built["cells"][0]["source"]
    assert first.startswith(f"# {CHAPTERS[0].read_text(encoding='utf-8').splitlines()[0][2:]} (notebook)\n")
    assert f"(https://example.invalid/{CHAPTERS[0].stem}/)" in first


@pytest.mark.parametrize("site_url", ["http://127.0.0.1:8000/", "http://localhost:8000/", ""])
def test_a_notebook_made_without_a_published_address_links_to_no_local_server(results, site_url):
    """``mkdocs serve`` and ``mkdocs.yml``'s default give a local address: a downloaded notebook
    links relative to its page instead (``../../<chapter>/``), never to that server."""
    record = results.page(CHAPTERS[1].read_text(encoding="utf-8"), f"docs/{CHAPTERS[1].name}")
    text = dumps(chapter_notebook(record, results.results, results.drawings, site_url))
    assert "127.0.0.1" not in text and "localhost" not in text
    assert f"(../../{CHAPTERS[1].stem}/)" in text and "(../../12-higher-order-gradients/#common-pitfalls)" in text


def test_the_drawing_function_is_one_folded_cell_on_every_notebook_and_its_page(results, warm_site):
    """JupyterLab hides its source, Colab shows its title, and the notebook's page shows it folded
    under that title, so a reader scrolls past one line to reach the examples."""
    from docexec.notebooks.chapter import DRAWING_TITLE, FOLDED

    for page in CHAPTERS:
        cells = [c for c in notebook_of(results, page)["cells"]
                 if c["cell_type"] == "code" and "def to_dot(" in c["source"]]
        assert len(cells) == 1 and cells[0]["metadata"] == FOLDED, page.stem
        assert cells[0]["source"].startswith(f"#@title {DRAWING_TITLE}\n")
        html = (warm_site / "notebooks" / page.stem / "index.html").read_text(encoding="utf-8")
        folded = re.findall(r'<details class="docexec-folded-cell"><summary>(.*?)</summary>(.*?)</details>', html, re.S)
        assert [(summary, "to_dot" in code) for summary, code in folded] == [(DRAWING_TITLE, True)], page.stem


@pytest.mark.parametrize("alt_first", [False, True], ids=["as nbconvert writes it", "attributes sorted"])
def test_a_notebook_pages_svg_images_become_inline_labelled_figures(alt_first):
    import base64

    from docexec.notebooks.convert import inline_figures

    def image(svg: str, alt: str = "") -> str:
        src = f'src="data:image/svg+xml;base64,{base64.b64encode(svg.encode()).decode()}"'
        attributes = [f'alt="{alt}"', src] if alt_first else [src, f'alt="{alt}"']
        return f"<img {' '.join(attributes if alt else [src])} />"

    labelled = '<svg role="img" aria-label="Autograd graph: x" width="8pt"><g id="nb-graph0"></g></svg>'
    concept = '<svg width="8pt"><g id="nb-graph0"></g></svg>'
    html = inline_figures(f"<div>{image(labelled)}</div><p>{image(concept, 'x &amp; y')}</p>")
    assert "<img" not in html and html.count('<figure class="docexec-figure">') == 2
    assert 'aria-label="Autograd graph: x"' in html and 'aria-label="x &amp; y"' in html
    assert 'id="nb0-graph0"' in html and 'id="nb1-graph0"' in html  # ids stay unique on the page


def test_notebook_text_is_plain_jupyter_markdown(results):
    built = notebook_of(results, CHAPTERS[0])
    markdown = "\n".join(c["source"] for c in built["cells"] if c["cell_type"] == "markdown")
    assert "!!! warning" not in markdown and "**Pitfall 1" in markdown  # admonitions became bold titles
    prose = re.sub(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", "", markdown, flags=re.M | re.S)  # code may hold ']['
    assert "][" not in prose  # reference links were inlined
    assert "(attachment:tensors-vs-nodes.svg)" in markdown  # the concept diagram travels with it
    assert dumps(built) == dumps(notebook_of(results, CHAPTERS[0]))  # same bytes every time


def test_make_notebooks_writes_what_the_site_serves(tmp_path, warm_site):
    """``python -m docexec notebooks`` (``make notebooks``, for hosts without the hook) writes each
    chapter's notebook where, and as, a MkDocs build serves it."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                   env=env, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "docexec", "notebooks", str(tmp_path / "out")], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    written = sorted(p.relative_to(tmp_path / "out") for p in (tmp_path / "out").rglob("*.ipynb"))
    served = sorted(p.relative_to(tmp_path / "site/notebooks") for p in (tmp_path / "site/notebooks").rglob("*.ipynb"))
    assert written == served and len(written) == len(CHAPTERS)
    for path in written:
        assert (tmp_path / "out" / path).read_bytes() == (tmp_path / "site/notebooks" / path).read_bytes(), path


def test_the_committed_colab_notebooks_are_the_pages_as_they_are_now(results):
    """``notebooks/<page>.ipynb`` (what "Open in Colab" opens) is current: ``make fix`` writes it."""
    from docexec.tasks.fix import colab_sync

    assert colab_sync(results.runner, results.runner.wait(), write=False) == []


def test_a_colab_notebook_carries_no_output_and_no_drawing():
    import json

    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        assert all(not c.get("outputs") for c in notebook["cells"] if c["cell_type"] == "code"), path.name
        text = path.read_text(encoding="utf-8")
        assert "attachments" not in text and "<svg" not in text
        assert "Colab may run another PyTorch" in notebook["cells"][0]["source"]


def test_open_in_colab_points_at_a_committed_notebook_when_the_repository_is_known(tmp_path, warm_site):
    import os
    import re
    import subprocess
    import sys

    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", COLAB_GITHUB="owner/course/blob/main")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                   env=env, check=True, capture_output=True)
    for page in CHAPTERS:
        for built in (tmp_path / "site" / page.stem / "index.html",
                      tmp_path / "site" / "notebooks" / page.stem / "index.html"):
            links = re.findall(r'href="https://colab\.research\.google\.com/github/owner/course/blob/main/([^"]+)"',
                               built.read_text(encoding="utf-8"))
            assert links == [f"notebooks/{page.stem}.ipynb"], built
            assert (ROOT / links[0]).is_file()
    env.pop("COLAB_GITHUB")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "--site-dir", str(tmp_path / "local")], cwd=ROOT,
                   env=env, check=True, capture_output=True)
    assert "colab.research.google.com" not in (tmp_path / "local" / CHAPTERS[0].stem / "index.html").read_text()


def test_the_notebook_key_follows_every_input_and_nothing_else(results, tmp_path):
    """A warm build reuses a notebook whose key is unchanged: the key must change with the page, an
    included file, a diagram, any result and the site's address, and must not with whether a result
    came from the cache or how long it took."""
    import dataclasses
    import shutil

    from docexec.notebooks.chapter import notebook_key

    def record(name: str, extra: str = ""):
        return results.page((ROOT / "docs" / name).read_text(encoding="utf-8") + extra, f"docs/{name}")

    chapter, base_results = record("01-computational-graph.md"), results.results
    base = notebook_key(chapter, base_results)
    snippet = chapter.snippets[0]
    runs = dict(base_results.runs)
    runs[snippet] = dataclasses.replace(runs[snippet], cached=not runs[snippet].cached, seconds=99.0)
    assert notebook_key(chapter, dataclasses.replace(base_results, runs=runs)) == base
    runs[snippet] = dataclasses.replace(runs[snippet], chunks=[Chunk(1, "something else\n")])
    assert notebook_key(chapter, dataclasses.replace(base_results, runs=runs)) != base
    assert notebook_key(record("01-computational-graph.md", "\nOne more sentence.\n"), base_results) != base
    assert notebook_key(chapter, base_results, "https://example.invalid/") != base
    copy = tmp_path / "repo"  # files are read from the repository: a copy is edited
    for folder in ("snippets", "diagrams", "docexec"):
        shutil.copytree(ROOT / folder, copy / folder)
    moved = dataclasses.replace(base_results, root=copy)
    assert notebook_key(chapter, moved) == base
    edited = {**moved.sources, snippet: moved.sources[snippet] + "\n# edited\n"}  # as the run read it
    assert notebook_key(chapter, dataclasses.replace(moved, sources=edited)) != base
    shown = copy / "docexec" / "graphs" / "graph.py"  # a file shown without running is read from the repository
    shown.write_text(shown.read_text() + "\n# edited\n")
    assert notebook_key(chapter, moved) != base
    shown.write_text((ROOT / "docexec" / "graphs" / "graph.py").read_text())
    assert chapter.diagrams, "chapter 01 shows a concept diagram"
    diagram = copy / chapter.diagrams[0].path
    diagram.write_text(diagram.read_text() + "\n// edited\n")
    assert notebook_key(chapter, moved) != base


def test_an_answers_example_stays_inside_the_folded_answer_and_no_build_line_shows(results):
    """A "find the bug" answer's fixed program is Markdown inside the answer's <details>: a code
    cell there would split the answer and show the fix before the reader opens it. And no cell
    carries a line that is there for the build (``<!-- docexec: exercise -->``)."""
    inside, marked = 0, []
    for page in CHAPTERS:
        for cell in notebook_of(results, page)["cells"]:
            source = cell["source"]
            if cell["cell_type"] == "markdown":
                assert source.count("<details") == source.count("</details>"), (page.name, source[:200])
                inside += len(re.findall(r"<details.*?```python.*?</details>", source, re.S))
            if "docexec:" in source:
                marked.append((page.name, cell["id"]))
    assert inside > 0  # some answers hold a fixed program: this test checks something
    assert marked == []
