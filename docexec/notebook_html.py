"""A chapter notebook's page, as mkdocs-jupyter shows a notebook, converted once per notebook.

mkdocs-jupyter (https://github.com/danielfrg/mkdocs-jupyter) is how this site shows its notebooks:
its nbconvert template (``mkdocs_html/notebook.html.j2``), its code highlighting and its table of
contents. Used as a plugin, it imports nbconvert and Jupytext in every build (about 0.4 s) and makes
a new exporter, whose templates Jinja2 compiles again, for each notebook. ``NotebookPages`` does
what its plugin does for one notebook (``nb2html`` and ``_get_nb_toc_tokens`` in
``mkdocs_jupyter/nbconvert2.py`` and ``plugin.py`` of mkdocs-jupyter 0.26.3, with that version's
defaults: no execution, inputs and prompts shown) with three differences:

* the HTML of a notebook is kept in ``cache_dir`` under the SHA-256 of the notebook's bytes: an
  unchanged notebook is not converted again, in this build or the next;
* nothing of nbconvert or mkdocs-jupyter is imported until a notebook needs converting;
* one exporter converts every notebook of a build.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path

from .cache import remove_unused
from .files import write_atomically

#: Where the pages' HTML is kept between builds, relative to the repository root.
NOTEBOOK_HTML_CACHE = ".cache/docexec/notebook-html"

#: Part of every key: HTML made by another converter (or another mkdocs-jupyter) is not reused.
FORMAT = "mkdocs-jupyter-0.26.3/1"


@dataclass(frozen=True)
class NotebookHtml:
    """What a notebook's page shows: ``content`` (HTML), ``toc_tokens`` (as Python-Markdown's
    ``toc`` extension makes them, for ``mkdocs.structure.toc.get_toc``) and ``title`` (its first
    level-1 heading, or None)."""

    content: str
    toc_tokens: list[dict]
    title: str | None


class NotebookPages:
    """Converts a build's notebooks to their pages' HTML; one per build (``cache_dir`` outlives it)."""

    def __init__(self, cache_dir: Path):
        self.cache_dir = Path(cache_dir)
        self.used: set[str] = set()  # file names in cache_dir this build used
        self.converted = 0  # notebooks this build converted (not found in cache_dir)
        self._exporter = None
        self._lock = threading.Lock()

    def html(self, notebook: Path) -> NotebookHtml:
        """The page of the notebook file ``notebook``, from ``cache_dir`` if its bytes were converted before.

        Raises:
            OSError: the notebook cannot be read.
            nbformat.ValidationError, ValueError: it is not a valid notebook (from nbconvert).
        """
        data = Path(notebook).read_bytes()
        name = hashlib.sha256(FORMAT.encode() + b"\0" + data).hexdigest() + ".json"
        self.used.add(name)
        cached = self._cached(name)
        if cached is not None:
            return cached
        with self._lock:
            made = self._convert(Path(notebook))
            self.converted += 1
        write_atomically(self.cache_dir / name, json.dumps(made.__dict__))
        return made

    def _cached(self, name: str) -> NotebookHtml | None:
        try:
            return NotebookHtml(**json.loads((self.cache_dir / name).read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):  # absent, or left broken: converted again
            return None

    def _convert(self, notebook: Path) -> NotebookHtml:
        """What ``mkdocs_jupyter.nbconvert2.nb2html`` and the plugin's table of contents make."""
        from mkdocs_jupyter import nbconvert2
        from mkdocs_jupyter.plugin import _get_nb_toc_tokens

        nbconvert2.cell_id = 0  # nb2html numbers the copy buttons of each notebook from 0
        nbconvert2.kernel_lang = "python"
        content, resources = self._html_exporter().from_filename(
            str(notebook), resources={"mkdocs": {"test": "value", "include_requirejs": False}})
        content += f'\n        <style>\n        {resources["inlining"]["css"]}\n        </style>\n        '
        toc_tokens, title = _get_nb_toc_tokens(str(notebook), 6)
        return NotebookHtml(content, toc_tokens, title)

    def _html_exporter(self):
        """The exporter nb2html makes, made once (nbconvert's ``HTMLExporter``, mkdocs-jupyter's
        template, preprocessor and filters)."""
        if self._exporter is None:
            from mkdocs_jupyter import nbconvert2
            from mkdocs_jupyter.config import settings
            from mkdocs_jupyter.preprocessors import SubCell
            from nbconvert.exporters.html import HTMLExporter
            from nbconvert.exporters.templateexporter import default_filters

            default_filters["clean_html"] = lambda element: (
                element.decode() if isinstance(element, bytes) else str(element))  # as nb2html sets it
            app = nbconvert2.get_nbconvert_app()
            self._exporter = HTMLExporter(
                config=app.config, template_file="mkdocs_html/notebook.html.j2",
                extra_template_paths=[settings.templates_dir], preprocessors=[SubCell],
                filters={"highlight_code": nbconvert2.mk_custom_highlight_code(extra_css_classes="")},
                theme="", mathjax_url="")
        return self._exporter

    def forget_unused(self) -> int:
        """Remove the pages in ``cache_dir`` this build did not use; returns how many."""
        return remove_unused(self.cache_dir, lambda name: name.endswith(".json") and name not in self.used)
