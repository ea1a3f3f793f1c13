"""A chapter notebook as it is committed for Colab (``notebooks/<page>.ipynb``), and the address
that opens it there."""

from __future__ import annotations

import os
import re

#: Where the chapter notebooks for Colab are committed (``colab_notebook``), from the repository root.
COLAB_FOLDER = "notebooks"
#: The environment variable the publishing workflow sets to ``<owner>/<repository>/blob/<branch>``:
#: with it, pages link each chapter's notebook to Colab (``colab_url``); without it, they do not.
COLAB_VARIABLE = "COLAB_GITHUB"
_ATTACHED = re.compile(r"!\[(?P<alt>[^\]]*)\]\(attachment:[^)]+\)")
#: A Markdown link to another page of the site, relative (``[text](04-leaf-tensors.md)``): it leads
#: nowhere from Colab, so the committed notebook keeps its text only.
_RELATIVE_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?!https?:|#)[^)\s]+\)")


def colab_notebook(notebook: dict) -> dict:
    """A chapter ``notebook`` (made with ``colab=True``, without a site address) as it is committed
    for Colab (``COLAB_FOLDER``): the same cells with no outputs and no drawings, so that the file
    depends on the page and its examples only, not on this machine's Graphviz: a figure cell draws
    the graph from the reader's own run, a concept diagram is named by its text alternative, and a
    relative link to another page keeps its text only."""
    cells = []
    for cell in notebook["cells"]:
        cell = dict(cell)
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        else:
            cell.pop("attachments", None)
            source = _ATTACHED.sub(lambda m: f"*(Figure on the site: {m.group('alt')})*", cell["source"])
            cell["source"] = _RELATIVE_LINK.sub(lambda m: m.group("text"), source)
        cells.append(cell)
    return dict(notebook, cells=cells)


def colab_url(stem: str) -> str:
    """The address that opens the committed notebook of chapter ``stem`` in Colab, or "" when the
    repository is not known (``COLAB_VARIABLE`` unset: a local build links nothing rather than a
    broken address)."""
    where = os.environ.get(COLAB_VARIABLE, "").strip("/")
    return f"https://colab.research.google.com/github/{where}/{COLAB_FOLDER}/{stem}.ipynb" if where else ""
