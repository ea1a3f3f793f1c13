"""Notebook pages: what mkdocs-jupyter would show, converted once per notebook's bytes, and nothing
of nbconvert imported when nothing needs converting."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from docexec.notebook_html import NotebookPages

from .conftest import ROOT


def notebook(path, text: str) -> None:
    path.write_text(json.dumps({
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": f"# A title\n\n## {text}"},
                  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": 1,
                   "source": "print(1)", "outputs": [{"output_type": "stream", "name": "stdout", "text": "1\n"}]}],
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")


def test_the_page_is_what_mkdocs_jupyter_makes(tmp_path):
    from mkdocs_jupyter import nbconvert2
    from mkdocs_jupyter.plugin import _get_nb_toc_tokens

    notebook(tmp_path / "n.ipynb", "A section")
    page = NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    assert page.content == nbconvert2.nb2html(str(tmp_path / "n.ipynb"), theme="", custom_mathjax_url="")
    assert (page.toc_tokens, page.title) == _get_nb_toc_tokens(str(tmp_path / "n.ipynb"), 6)
    assert page.title == "A title" and "A section" in page.content


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
    assert len(list((tmp_path / "cache").iterdir())) == 1


def test_a_broken_cache_file_is_converted_again(tmp_path):
    notebook(tmp_path / "n.ipynb", "First")
    pages = NotebookPages(tmp_path / "cache")
    pages.html(tmp_path / "n.ipynb")
    (cached,) = (tmp_path / "cache").iterdir()
    cached.write_text("{", encoding="utf-8")
    again = NotebookPages(tmp_path / "cache")
    assert "First" in again.html(tmp_path / "n.ipynb").content and again.converted == 1


@pytest.mark.parametrize("cached", [True, False])
def test_nbconvert_is_imported_only_to_convert(tmp_path, cached):
    notebook(tmp_path / "n.ipynb", "First")
    if cached:
        NotebookPages(tmp_path / "cache").html(tmp_path / "n.ipynb")
    code = ("import sys; from pathlib import Path; from docexec.notebook_html import NotebookPages; "
            f"NotebookPages(Path({str(tmp_path / 'cache')!r})).html(Path({str(tmp_path / 'n.ipynb')!r})); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'nbconvert', 'mkdocs_jupyter', 'jupytext'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ("[]" if cached else "['jupytext', 'mkdocs_jupyter', 'nbconvert']")
