"""Notebook pages: what mkdocs-jupyter would show, converted once per notebook's bytes, and nothing
of nbconvert imported when nothing needs converting."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from html import unescape

import pytest

from docexec.notebooks.convert import NO_ALT, accessible_html
from docexec.notebooks.notebook_html import (
    STYLESHEET_LINK,
    Converter,
    NotebookError,
    NotebookPages,
    split_stylesheet,
)

from .conftest import ROOT

pytestmark = pytest.mark.slow


def notebook(path, text: str) -> None:
    path.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": f"# A title\n\n## {text}"},
                  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1,
                   "source": "print(1)", "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")


PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def rich_notebook(path) -> None:
    """A notebook with what nbconvert's last step changes: an image without alternative text, one
    with, code cells' inputs and outputs (text, an error, HTML)."""
    path.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# A title & more\n\n## A section\n\n"
                   f"![a pixel](data:image/png;base64,{PIXEL}) and <br> a & b\n\n## The `grad` function\n\n### Deeper"},
                  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1, "source": "show()",
                   "outputs": [{"output_type": "stream", "name": "stdout", "text": "1 < 2\n"},
                               {"output_type": "display_data", "metadata": {}, "data": {"image/png": PIXEL}},
                               {"output_type": "display_data", "metadata": {}, "data": {
                                   "text/html": '<div class="jp-OutputArea-output x">inner</div><img src="x.png">'}},
                               {"output_type": "error", "ename": "ValueError", "evalue": "no", "traceback": ["no"]}]}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")


def test_the_page_is_what_mkdocs_jupyter_makes(tmp_path):
    """nbconvert ends by reading the page with BeautifulSoup and writing it out again; this project
    makes the same changes on the text (accessible_html): BeautifulSoup reads both as one tree."""
    from bs4 import BeautifulSoup
    from mkdocs_jupyter import convert as nbconvert2  # what the plugin calls, its heading ids made lowercase

    from docexec.notebooks.convert import _Exporter

    rich_notebook(tmp_path / "n.ipynb")
    made = _Exporter().convert(tmp_path / "n.ipynb", (tmp_path / "n.ipynb").read_bytes())
    expected = nbconvert2.nb2html(str(tmp_path / "n.ipynb"), theme="", custom_mathjax_url="")

    def tree(html: str) -> str:
        return str(BeautifulSoup(html, "html.parser"))

    assert made.content != expected and tree(made.content) == tree(expected)
    assert made.content.count(NO_ALT) == expected.count(NO_ALT) == 2
    assert made.content.count('tabindex="0"') == expected.count('tabindex="0"') == 7  # 2 inputs, 5 outputs
    page = NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    content, css = split_stylesheet(made.content)
    assert page.content == content and STYLESHEET_LINK in content and "jp-Notebook" in css
    assert (tmp_path / "cache" / page.stylesheet).read_text(encoding="utf-8") == css
    assert page.title == "A title &amp; more" and "A section" in page.content


def test_the_contents_and_title_keep_a_headings_code_and_link_to_its_id(tmp_path):
    """mkdocs-jupyter's own contents drop inline code from headings (\"Did  leave a graph?\") and
    so link to ids the page does not have."""
    rich_notebook(tmp_path / "n.ipynb")
    page = NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    (title,) = page.toc_tokens
    assert (title["level"], title["name"]) == (1, "A title &amp; more")
    assert [(t["level"], t["name"], t["html"]) for t in title["children"]] == [
        (2, "A section", "A section"), (2, "The grad function", "The <code>grad</code> function")]
    (deeper,) = title["children"][1]["children"]
    assert deeper["level"] == 3
    ids = [unescape(found) for found in re.findall(r'<h[1-6] id="([^"]*)"', page.content)]
    linked = [title["id"]] + [t["id"] for t in title["children"]] + [deeper["id"]]
    assert linked == ids and "grad" in linked[2]
    # lowercase, as mkdocs-jupyter's plugin has nbconvert make them: the chapters link to these
    assert ids == ["a-title-more", "a-section", "the-grad-function", "deeper"]


def test_a_notebook_is_converted_again_only_when_its_bytes_change(tmp_path):
    notebook(tmp_path / "n.ipynb", "First")
    first = NotebookPages(tmp_path / "cache")
    made = first.html(tmp_path / "n.ipynb")
    assert first.converted == 1
    again = NotebookPages(tmp_path / "cache")  # the next build
    assert again.html(tmp_path / "n.ipynb") == made and again.converted == 0
    notebook(tmp_path / "n.ipynb", "Second")
    assert "Second" in again.html(tmp_path / "n.ipynb").content and again.converted == 1
    latest = NotebookPages(tmp_path / "cache")  # a build that shows the notebook as it is now
    latest.html(tmp_path / "n.ipynb")
    assert latest.forget_unused() == 1  # the page of the notebook as it was
    assert sorted(p.suffix for p in (tmp_path / "cache").iterdir()) == [".css", ".json"]  # one sheet for both


def test_the_style_sheets_leave_the_page_in_their_order_and_the_rest_stays():
    html = ('<script>a</script>\n<style type="text/css">\n.a{}</style>\n<style type="text/css">\n.b{}</style>'
            '<div>x</div><style type="text/css">.c{}</style>')
    assert split_stylesheet(html) == (
        f'<script>a</script>\n{STYLESHEET_LINK}<div>x</div><style type="text/css">.c{{}}</style>', "\n.a{}\n\n.b{}")
    assert split_stylesheet("<p>no sheet</p>") == ("<p>no sheet</p>", "")


def test_a_broken_cache_file_is_converted_again(tmp_path):
    notebook(tmp_path / "n.ipynb", "First")
    pages = NotebookPages(tmp_path / "cache")
    sheet = pages.html(tmp_path / "n.ipynb").stylesheet
    (cached,) = (tmp_path / "cache").glob("*.json")
    cached.write_text("{", encoding="utf-8")
    again = NotebookPages(tmp_path / "cache")
    assert "First" in again.html(tmp_path / "n.ipynb").content and again.converted == 1
    (tmp_path / "cache" / sheet).unlink()  # a page whose style sheet is gone is converted again too
    latest = NotebookPages(tmp_path / "cache")
    assert latest.html(tmp_path / "n.ipynb").stylesheet == sheet and latest.converted == 1
    assert (tmp_path / "cache" / sheet).is_file()


def test_a_cached_page_edited_by_hand_is_converted_again(tmp_path):
    """A kept page carries a seal of its name and bytes (``core.files.sealed``), as the other caches'
    files do: a page changed in the cache never reaches the site."""
    notebook(tmp_path / "n.ipynb", "First")
    NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    (cached,) = (tmp_path / "cache").glob("*.json")
    cached.write_bytes(cached.read_bytes().replace(b"First", b"Forged"))
    again = NotebookPages(tmp_path / "cache")
    shown = again.html(tmp_path / "n.ipynb").content
    assert "First" in shown and "Forged" not in shown and again.converted == 1


@pytest.mark.parametrize("cached", [True, False])
def test_the_builds_process_never_imports_nbconvert_and_starts_a_converter_only_to_convert(tmp_path, cached):
    notebook(tmp_path / "n.ipynb", "First")
    if cached:
        NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    code = ("import sys; from pathlib import Path; from docexec.notebooks.notebook_html import NotebookPages; "
            f"pages = NotebookPages(Path({str(tmp_path / 'cache')!r})); "
            f"assert 'First' in pages.html(Path({str(tmp_path / 'n.ipynb')!r})).content; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'nbconvert', 'mkdocs_jupyter', 'jupytext'}), "
            "pages.converter._proc is not None)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["[]", str(not cached)]


def test_one_converting_process_serves_every_build_and_notebook(tmp_path):
    converter = Converter(tmp_path)
    pid = None
    try:
        for number in range(3):  # three builds, each with its own NotebookPages
            notebook(tmp_path / f"n{number}.ipynb", f"Section {number}")
            pages = NotebookPages(tmp_path / "cache", converter)
            futures = [pages.submit(tmp_path / f"n{n}.ipynb") for n in range(number + 1)]
            assert [f"Section {n}" in f.result(60).content for n, f in enumerate(futures)] == [True] * (number + 1)
            assert pages.converted == 1  # the earlier notebooks came from the cache
            pid = pid or converter._proc.pid
            assert converter._proc.pid == pid
    finally:
        converter.close()
    assert converter._proc.poll() is not None


def test_a_bad_notebook_fails_with_one_line_naming_it_and_the_next_is_converted(tmp_path):
    (tmp_path / "bad.ipynb").write_text('{"cells": 3}', encoding="utf-8")
    notebook(tmp_path / "good.ipynb", "Fine")
    pages = NotebookPages(tmp_path / "cache", Converter(tmp_path))
    try:
        with pytest.raises(NotebookError, match=r"^bad\.ipynb: \w+") as failed:
            pages.html(tmp_path / "bad.ipynb")
        assert "\n" not in str(failed.value)
        assert "Fine" in pages.html(tmp_path / "good.ipynb").content
    finally:
        pages.converter.close()


def test_a_converter_that_ends_fails_what_it_had_not_done_and_a_new_one_converts_the_next(tmp_path):
    notebook(tmp_path / "n.ipynb", "First")
    converter = Converter(tmp_path)
    try:
        left = converter.submit(tmp_path / "n.ipynb", tmp_path)  # nbconvert is still being imported
        converter._proc.kill()
        with pytest.raises(NotebookError, match="converter ended"):
            left.result(60)
        again = converter.submit(tmp_path / "n.ipynb", tmp_path)
        assert "First" in again.result(60).content
    finally:
        converter.close()


def test_accessible_html_touches_only_images_without_alt_and_the_notebooks_cell_wrappers():
    html = ('<div class="jp-OutputArea-output">before the notebook</div><div class="jp-Notebook">'
            '<img src="a.png"><img src="b.png" alt="b"><img src="c.png" />'
            '<div class="x jp-Cell-inputWrapper">in</div><div class="jp-Cell-inputWrapper-other">not</div>'
            '<div class="jp-OutputArea-output" tabindex="-1">kept</div><span class="jp-OutputArea-output">span</span>')
    assert accessible_html(html) == (
        '<div class="jp-OutputArea-output">before the notebook</div><div class="jp-Notebook">'
        f'<img src="a.png" alt="{NO_ALT}"><img src="b.png" alt="b"><img src="c.png" alt="{NO_ALT}"/>'
        '<div class="x jp-Cell-inputWrapper" tabindex="0">in</div><div class="jp-Cell-inputWrapper-other">not</div>'
        '<div class="jp-OutputArea-output" tabindex="-1">kept</div><span class="jp-OutputArea-output">span</span>')


def test_a_notebook_rewritten_before_its_conversion_is_kept_under_the_bytes_converted(tmp_path):
    """The converting process names a page by the bytes it read, not by those the build read when
    it asked: a file rewritten in between is never kept under the name of its old bytes."""
    notebook(tmp_path / "n.ipynb", "First")
    converter = Converter(tmp_path)
    try:
        asked = NotebookPages(tmp_path / "cache", converter).submit(tmp_path / "n.ipynb")  # still starting
        notebook(tmp_path / "n.ipynb", "Second")
        assert "Second" in asked.result(60).content
        notebook(tmp_path / "n.ipynb", "First")
        again = NotebookPages(tmp_path / "cache", converter)
        assert "First" in again.html(tmp_path / "n.ipynb").content and again.converted == 1
    finally:
        converter.close()


def test_a_damaged_style_sheet_in_the_cache_is_made_again(tmp_path):
    import hashlib

    notebook(tmp_path / "n.ipynb", "First")
    converter = Converter(tmp_path)
    try:
        sheet = NotebookPages(tmp_path / "cache", converter).html(tmp_path / "n.ipynb").stylesheet
        (tmp_path / "cache" / sheet).write_text("garbage", encoding="utf-8")
        again = NotebookPages(tmp_path / "cache", converter)
        assert again.html(tmp_path / "n.ipynb").stylesheet == sheet and again.converted == 1
        assert sheet == f"jupyter-{hashlib.sha256((tmp_path / 'cache' / sheet).read_bytes()).hexdigest()[:16]}.css"
    finally:
        converter.close()


def test_a_dropped_converter_stops_its_process(tmp_path):
    import gc

    notebook(tmp_path / "n.ipynb", "First")
    pages = NotebookPages(tmp_path / "cache")  # with a converter of its own
    pages.html(tmp_path / "n.ipynb")
    proc = pages.converter._proc
    assert proc.poll() is None
    del pages
    gc.collect()
    assert proc.wait(10) == 0


def test_a_converter_whose_build_is_gone_ends_without_a_traceback(tmp_path):
    """The build ended by a signal while a notebook was converted: the reply has nowhere to go."""
    notebook(tmp_path / "n.ipynb", "First")
    proc = subprocess.Popen([sys.executable, "-m", "docexec.notebooks.convert"], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdout.close()  # as the build's end of the pipe closes when it is killed
    _, err = proc.communicate(json.dumps({"notebook": str(tmp_path / "n.ipynb"), "cache": str(tmp_path)}) + "\n",
                              timeout=120)
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert list(tmp_path.glob("*.json"))  # the page was written before the reply failed


def test_a_page_is_converted_again_when_a_package_that_makes_it_changes(monkeypatch):
    from importlib import metadata

    from docexec.notebooks import notebook_html

    before = notebook_html.page_name(b"{}")
    installed = metadata.version
    monkeypatch.setattr(metadata, "version", lambda name: "0.0" if name == "pygments" else installed(name))
    notebook_html._converting_code.cache_clear()
    try:
        assert notebook_html.page_name(b"{}") != before
    finally:
        notebook_html._converting_code.cache_clear()
    monkeypatch.undo()
    assert notebook_html.page_name(b"{}") == before


def test_headings_get_the_ids_the_chapter_page_gives_them(tmp_path):
    """Repeated headings and headings of symbols or Greek letters get the ids Python-Markdown's toc
    gives the same Markdown (nbconvert's: the same id twice, an empty one), and the contents link to
    them; a heading written as raw HTML, in a comment or in a cell's output is left as it is."""
    import markdown

    text = ('# A title\n\n<h4 id="core">Why</h4>\n\n<!-- <h2>Why</h2> -->\n\n## Why\n\n## Why\n\n### `@`\n\n'
            "### Ελληνικά\n\n## The `grad` function")
    chapter = markdown.markdown(text, extensions=["toc"])
    expected = re.findall(r'<h[1-6] id="([^"]*)"', chapter)
    path = tmp_path / "n.ipynb"
    path.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": text}],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    output = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<h2>Why</h2>"}}
    path.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": text},
                  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1, "source": "",
                   "outputs": [output]}],
        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    page = NotebookPages(tmp_path / "cache").html(path)
    ids = re.findall(r'<h[1-6] id="([^"]*)"', page.content)
    assert ids == expected == ["a-title", "core", "why", "why_1", "_1", "_2", "the-grad-function"]
    assert "<!-- <h2>Why</h2> -->" in page.content and "<h2>Why</h2>\n</div>" in page.content  # left alone
    anchors = re.findall(r'<a class="anchor-link" href="#([^"]*)"', page.content)
    assert anchors == [i for i in ids if i != "core"]

    def linked(tokens):
        return [i for t in tokens for i in [t["id"], *linked(t["children"])]]

    assert linked(page.toc_tokens) == [i for i in ids if i != "core"]  # as toc leaves raw HTML out


def test_a_warmed_up_exporter_makes_the_same_page_and_keep_ready_starts_one_warmed_up(tmp_path):
    """Under ``mkdocs serve`` the converter makes a first conversion as it starts (``--warm``); what
    it makes of a notebook afterwards is what a converter that made none makes."""
    from docexec.notebooks.convert import _Exporter

    rich_notebook(tmp_path / "n.ipynb")
    data = (tmp_path / "n.ipynb").read_bytes()
    warmed = _Exporter()
    warmed.warm_up()
    assert warmed.convert(tmp_path / "n.ipynb", data) == _Exporter().convert(tmp_path / "n.ipynb", data)
    converter = Converter(tmp_path)
    try:
        converter.keep_ready()
        assert converter._proc.args[-1] == "--warm"
        (tmp_path / "cache").mkdir()
        made = converter.submit(tmp_path / "n.ipynb", tmp_path / "cache").result(timeout=120)
        assert made.title.startswith("A title")
    finally:
        converter.close()


def test_a_warm_up_that_fails_says_so_in_one_line_and_the_notebooks_are_converted_all_the_same(monkeypatch, capsys):
    from docexec.notebooks import convert

    def broken(self):
        raise RuntimeError("no templates")

    monkeypatch.setattr(convert._Exporter, "warm_up", broken)
    assert convert._ready_exporter(warm=True) is None  # the first request makes a new exporter
    assert capsys.readouterr().err == ("docexec: the notebook converter's first conversion failed (RuntimeError: "
                                       "no templates); the notebooks are converted without it\n")
    assert isinstance(convert._ready_exporter(warm=False), convert._Exporter)


def test_a_remembered_cell_is_highlighted_once_and_the_page_is_the_same():
    from mkdocs_jupyter import nbconvert2

    from docexec.core import compat
    from docexec.notebooks.convert import RememberedHighlight

    highlight, highlighted = nbconvert2.mk_custom_highlight_code(extra_css_classes=""), []

    def counting(source, language=None, metadata=None):
        highlighted.append(source)
        return highlight(source, language, metadata)

    cells = [("x = 1", None, {}), ("y = 2", "python", {"tags": ["a"]}), ("x = 1", None, {})]
    remembered = RememberedHighlight(nbconvert2, counting)
    pages = []
    for convert in (remembered, remembered, highlight):  # twice remembered, then as mkdocs-jupyter does
        compat.reset_nb2html(nbconvert2)  # each notebook numbers its copy buttons from 0
        pages.append([convert(*cell) for cell in cells])
    assert pages[0] == pages[1] == pages[2]
    assert [re.findall(r'id="cell-(\d+)"', html) for html in pages[0]] == [["1"], ["2"], ["3"]]
    assert highlighted == ["x = 1", "y = 2"]
