"""The converting process of ``docexec.notebooks.notebook_html``: a notebook's page made as
mkdocs-jupyter makes it, by nbconvert, with the differences that module lists. This is the only
module that imports nbconvert and mkdocs-jupyter, and only in that process
(``python -m docexec.notebooks.convert``).
"""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import os
import re
import signal
import sys
from html import escape, unescape
from pathlib import Path

from docexec.core import compat
from docexec.core.files import sealed, write_atomically
from docexec.notebooks.notebook_html import NotebookError, NotebookHtml, page_name, split_stylesheet
from docexec.pages.render import figure_html, labelled

_TAG = re.compile(r"<(img|div)\b([^<>]*)>")
_CLASS = re.compile(r'\bclass="([^"]*)"')
_FOCUSABLE = {"jp-Cell-inputWrapper", "jp-OutputArea-output"}
NO_ALT = "No description has been provided for this image"


def accessible_html(html: str) -> str:
    """What ``HTMLExporter.from_notebook_node`` of nbconvert 7.17.2 (``nbconvert/exporters/html.py``)
    does to the template's HTML with BeautifulSoup, done on the text: an ``<img>`` without ``alt``
    gets ``alt="No description has been provided for this image"``, and a ``<div>`` inside the
    ``jp-Notebook`` element whose classes include ``jp-Cell-inputWrapper`` or
    ``jp-OutputArea-output`` gets ``tabindex="0"`` (so a reader can scroll it from the keyboard).
    Everything else is left byte for byte (BeautifulSoup writes the whole page out again)."""
    notebook = html.find('class="jp-Notebook"')

    def fix(match: re.Match) -> str:
        name, attributes = match.groups()
        if name == "img":
            if re.search(r"\balt=", attributes):
                return match.group(0)
            closing = "/" if attributes.rstrip().endswith("/") else ""
            kept = attributes.rstrip()[:-1].rstrip() if closing else attributes
            return f'<img{kept} alt="{NO_ALT}"{closing}>'
        classes = _CLASS.search(attributes)
        if (notebook < 0 or match.start() < notebook or classes is None or "tabindex=" in attributes
                or not _FOCUSABLE & set(classes.group(1).split())):
            return match.group(0)
        return f'<div{attributes} tabindex="0">'

    return _TAG.sub(fix, html)


_HEADING = re.compile(r'<h([1-6]) id="([^"]*)">(.*?)</h\1>', re.S)
_ANY_HEADING = re.compile(r"<h([1-6])((?:\s[^>]*)?)>(.*?)</h\1>", re.S)
_ANCHOR_LINK = re.compile(r'<a class="anchor-link"[^>]*>.*?</a>', re.S)


def _heading_text(inner: str) -> str:
    """The text of a heading whose HTML inside ``<hN>`` is ``inner``: without tags or anchor link."""
    return unescape(re.sub(r"<[^>]+>", "", _ANCHOR_LINK.sub("", inner)))


def chapter_ids(html: str) -> str:
    """``html`` with each heading's ``id`` made as Python-Markdown's ``toc`` extension makes the
    chapter page's (``slugify`` of the heading's text, then ``unique``: ``_1``, ``_2``... for a
    repeated or empty one; https://python-markdown.github.io/extensions/toc/), and its anchor link
    pointing there: the notebook's links to sections, copied from the chapter, then lead to the
    same headings. nbconvert gives ids of its own (``Core-Concepts``; mkdocs-jupyter's plugin
    patches it to make them lowercase), the same one to a repeated heading and an empty one to a
    heading of symbols or Greek letters.

    Only the headings of the notebook's Markdown are renamed: those that have nbconvert's anchor
    link. A heading written as raw HTML (its own ``id`` kept; toc leaves it alone too), one in an
    HTML comment or in a cell's output is left as it is, and so is one nbconvert gave no anchor link
    (a heading holding a ``<br>``: its text cannot be told from raw HTML)."""
    from markdown.extensions.toc import slugify, unique

    used: set[str] = set()

    def renamed(match: re.Match) -> str:
        level, attributes, inner = match.groups()
        if not _ANCHOR_LINK.search(inner):
            return match.group(0)
        new = unique(slugify(_heading_text(inner), "-"), used)
        attributes = re.sub(r'\s+id="[^"]*"', "", attributes)
        inner = re.sub(r'(<a class="anchor-link" href=")[^"]*(")', lambda a: f"{a.group(1)}#{new}{a.group(2)}", inner)
        return f'<h{level} id="{new}"{attributes}>{inner}</h{level}>'

    return _ANY_HEADING.sub(renamed, html)


def headings(html: str, depth: int = 6) -> tuple[list[dict], str | None]:
    """The table of contents of a notebook page and its title, from the headings (``<h1>`` to
    ``<h{depth}>``, with the ``id`` and the anchor link nbconvert gives each heading of the
    notebook's Markdown; a raw HTML heading has no anchor link) of its HTML: tokens as Python-Markdown's
    ``toc`` extension makes them (``level``, ``id``, ``name``: the text, escaped; ``html``: the
    heading's HTML without its anchor link; ``data-toc-label``; ``children``), nested by level,
    and the name of the first level-1 heading (None without one)."""
    tokens: list[dict] = []
    stack: list[dict] = []
    title = None
    for match in _HEADING.finditer(html):
        level = int(match.group(1))
        if level > depth or not _ANCHOR_LINK.search(match.group(3)):  # raw HTML: toc leaves it out too
            continue
        inner = _ANCHOR_LINK.sub("", match.group(3)).strip()
        name = escape(_heading_text(inner), quote=False).strip()
        token = {"level": level, "id": unescape(match.group(2)), "name": name, "html": inner,
                 "data-toc-label": "", "children": []}
        title = name if title is None and level == 1 else title
        while stack and stack[-1]["level"] >= level:
            stack.pop()
        (stack[-1]["children"] if stack else tokens).append(token)
        stack.append(token)
    return tokens, title


def _exporter_class():
    """nbconvert's ``HTMLExporter`` with its last step done by ``accessible_html`` (the rest of its
    ``from_notebook_node`` as nbconvert 7.17.2 has it)."""
    from nbconvert.exporters.html import HTMLExporter
    from nbconvert.exporters.templateexporter import TemplateExporter
    from nbconvert.filters.highlight import Highlight2HTML
    from nbconvert.filters.widgetsdatatypefilter import WidgetsDataTypeFilter

    class TextHTMLExporter(HTMLExporter):
        def from_notebook_node(self, nb, resources=None, **kw):
            language = nb.metadata.get("language_info", {})
            lexer = language.get("pygments_lexer", language.get("name", None))
            self.register_filter("highlight_code", self.filters.get(
                "highlight_code", Highlight2HTML(pygments_lexer=lexer, parent=self)))
            resources = compat.init_resources(self, resources)
            self.register_filter("filter_data_type", WidgetsDataTypeFilter(
                notebook_metadata=compat.notebook_metadata(self), parent=self, resources=resources))
            html, resources = TemplateExporter.from_notebook_node(self, nb, resources, **kw)
            return accessible_html(html), resources

    return TextHTMLExporter


class RememberedHighlight:
    """mkdocs-jupyter's ``highlight_code`` filter (``nbconvert2.mk_custom_highlight_code``: Pygments'
    HTML of a code cell, then the cell's source for its copy button, numbered by a counter of that
    module), with what Pygments made of each cell remembered: under ``mkdocs serve`` an edit changes
    one cell of a notebook, and highlighting the others again was 40 % of converting it. A
    remembered cell still takes the next copy button number, as it would have."""

    LIMIT = 4096  # cells remembered, the least recently used forgotten first

    def __init__(self, nbconvert2, highlight) -> None:
        self.nbconvert2, self.highlight = nbconvert2, highlight
        self.made: dict[tuple[str, str, str], tuple[int, str]] = {}  # -> (its copy button number, HTML)

    def __call__(self, source, language=None, metadata=None) -> str:
        number, kernel = compat.nb2html_state(self.nbconvert2)
        key = (source, language or kernel, json.dumps(metadata, sort_keys=True, default=repr))
        if key in self.made:
            was, html = self.made.pop(key)
            compat.set_copy_button_number(self.nbconvert2, number + 1)
            old, new = f'<div id="cell-{was}" class="clipboard-copy-txt">', \
                f'<div id="cell-{number + 1}" class="clipboard-copy-txt">'
            head, _, tail = html.rpartition(old)
            html = head + new + tail
        else:
            html = self.highlight(source, language, metadata)
        self.made[key] = (compat.nb2html_state(self.nbconvert2)[0], html)
        if len(self.made) > self.LIMIT:
            del self.made[next(iter(self.made))]
        return html


class _Exporter:
    """What ``mkdocs_jupyter.nbconvert2.nb2html`` and the plugin's table of contents make, with one
    exporter made for every notebook (in the converting process)."""

    def __init__(self):
        for package in ("nbconvert", "mkdocs-jupyter"):
            if compat.version_problem(package):
                raise NotebookError(compat.version_problem(package))
        from mkdocs_jupyter import nbconvert2
        from mkdocs_jupyter.config import settings
        from mkdocs_jupyter.preprocessors import SubCell
        from nbconvert.exporters.templateexporter import default_filters

        default_filters["clean_html"] = lambda element: (
            element.decode() if isinstance(element, bytes) else str(element))  # as nb2html sets it
        app = nbconvert2.get_nbconvert_app()
        self.exporter = _exporter_class()(
            config=app.config, template_file="mkdocs_html/notebook.html.j2",
            extra_template_paths=[settings.templates_dir], preprocessors=[SubCell],
            filters={"highlight_code": RememberedHighlight(
                nbconvert2, nbconvert2.mk_custom_highlight_code(extra_css_classes=""))},
            theme="", mathjax_url="")

    def warm_up(self) -> None:
        """Convert a notebook of two cells and drop what it makes: a first conversion compiles
        nbconvert's templates and loads the highlighting's lexer (0.2 s, as long as the conversion
        itself), which the first notebook an edit changes under ``mkdocs serve`` then does not wait for."""
        from nbconvert.exporters.exporter import ResourcesDict
        from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

        cells = [new_markdown_cell("# A heading\n\nSome `code`."),
                 new_code_cell("print(1)", outputs=[new_output("stream", name="stdout", text="1\n")])]
        resources = _plugin_resources(ResourcesDict(name="warm-up", path="."))
        self.exporter.from_notebook_node(new_notebook(cells=cells, metadata={"language_info": {"name": "python"}}),
                                         resources=resources)

    def convert(self, notebook: Path, data: bytes) -> NotebookHtml:
        """The page of the notebook file ``notebook`` whose bytes, read once, are ``data``: what
        ``from_filename`` of nbconvert 7.17.2 does with the file, done with those bytes."""
        import datetime
        import io

        from mkdocs_jupyter import nbconvert2
        from nbconvert.exporters.exporter import ResourcesDict

        compat.reset_nb2html(nbconvert2)
        modified = datetime.datetime.fromtimestamp(os.path.getmtime(notebook), tz=datetime.UTC)
        metadata = ResourcesDict(name=notebook.stem, path=str(notebook.parent),
                                 modified_date=modified.strftime("%B %-d, %Y"))  # a defaultdict, as nbconvert's
        resources = _plugin_resources(metadata)
        content, resources = self.exporter.from_file(io.StringIO(data.decode("utf-8")), resources=resources)
        content += f'\n        <style>\n        {resources["inlining"]["css"]}\n        </style>\n        '
        content = inline_figures(chapter_ids(fold_cells(content)))
        toc_tokens, title = headings(content)
        return NotebookHtml(content, toc_tokens, title)


#: The tag of a code cell that a notebook's page shows folded (``fold_cells``), as JupyterLab and
#: Colab show it (its metadata hides its source there).
FOLDED_TAG = "folded"
#: The first line of a folded cell: Colab's form title, the summary of the folded cell on the page.
_TITLE_LINE = re.compile(r"#@title (?P<title>[^\n<]+)")


def fold_cells(html: str) -> str:
    """A notebook page's HTML with the code of each cell tagged ``FOLDED_TAG`` in a ``<details>``
    element whose summary is the cell's ``#@title`` line: the reader scrolls past one line, and
    opens it to read the code."""
    found, start = [], 0
    while (cell := html.find(f"celltag_{FOLDED_TAG}", start)) >= 0:
        begin = html.find('<div class="jp-Cell-inputWrapper"', cell)
        end = _element_end(html, begin)
        title = _TITLE_LINE.search(unescape(re.sub(r"<[^>]+>", "", html[begin:end])))
        summary = escape(title.group("title")) if title else "Code"
        found.append(html[start:begin] + f'<details class="docexec-folded-cell"><summary>{summary}</summary>\n'
                     + html[begin:end] + "\n</details>")
        start = end
    return "".join(found) + html[start:]


def _element_end(html: str, begin: int) -> int:
    """Where the ``<div>`` element that starts at ``begin`` ends (after its ``</div>``)."""
    depth, at = 0, begin
    for match in re.compile(r"<div\b|</div>").finditer(html, begin):
        depth += 1 if match.group(0) != "</div>" else -1
        at = match.end()
        if depth == 0:
            break
    return at


#: How nbconvert (mkdocs-jupyter) shows an SVG output on a notebook's page: an image of the document.
#: Its attributes come in the order the Markdown renderer wrote them (``src`` before ``alt``), or
#: sorted where a BeautifulSoup pass wrote the page out again: both are read.
_SVG_IMAGE = re.compile(r'<img\b(?=[^>]*\ssrc="data:image/svg\+xml;base64,(?P<data>[A-Za-z0-9+/=]+)")'
                        r'(?=(?:[^>]*\salt="(?P<alt>[^"]*)")?)[^>]*>')


def inline_figures(html: str) -> str:
    """A notebook page's HTML with each SVG output, which nbconvert shows as an image, put in as an
    inline figure, as on the chapter's page: the palettes colour it (an image's insides cannot be
    styled) and the figure opens full screen. Its text alternative is the SVG's own label, or the
    image's alt text (a concept diagram's). Each figure's ids get a prefix of their own (``nb0-``,
    ``nb1-``, ...)."""
    numbers = itertools.count()

    def inline(match: re.Match) -> str:
        svg = base64.b64decode(match.group("data")).decode().replace(' id="nb-', f' id="nb{next(numbers)}-')
        if 'role="img"' not in svg[: svg.find(">")]:  # a concept diagram: its alt text is the image's
            svg = labelled(svg, unescape(match.group("alt") or ""))
        return figure_html(svg, "")

    return _SVG_IMAGE.sub(inline, html)


def _write_page(made: NotebookHtml, out: Path) -> None:
    """Write ``made`` to ``out`` with its style sheet in a file of its own next to it
    (``split_stylesheet``; named by its digest, so each notebook's pages share one; written again
    unless it holds exactly that)."""
    content, css = split_stylesheet(made.content)
    stylesheet = ""
    if css:
        stylesheet = f"jupyter-{hashlib.sha256(css.encode()).hexdigest()[:16]}.css"
        sheet = out.parent / stylesheet
        if not sheet.is_file() or sheet.read_bytes() != css.encode():
            write_atomically(sheet, css)
    page = json.dumps({**made.__dict__, "content": content, "stylesheet": stylesheet}).encode()
    write_atomically(out, sealed(out.name, page))  # read back by notebook_html._read, which checks the seal


def _plugin_resources(metadata):
    """The resources mkdocs-jupyter's ``nb2html`` starts a conversion from, with ``metadata``."""
    from nbconvert.exporters.exporter import ResourcesDict

    return ResourcesDict(mkdocs={"test": "value", "include_requirejs": False}, metadata=metadata)


def _ready_exporter(warm: bool) -> _Exporter | None:
    """The process's exporter, made as it starts, or None if it cannot be made (each request then
    says why); with ``warm``, after a first conversion (``_Exporter.warm_up``), whose failure is
    said in one line on standard error (None: the first request makes a new exporter)."""
    try:
        exporter = _Exporter()
    except Exception:  # noqa: BLE001 - each request says why
        return None
    if warm:
        try:
            exporter.warm_up()
        except Exception as error:  # noqa: BLE001 - said here; the notebooks are converted all the same
            print(f"docexec: the notebook converter's first conversion failed ({type(error).__name__}: "
                  f"{error}); the notebooks are converted without it", file=sys.stderr)
            return None
    return exporter


def main() -> None:
    """The converting process: one JSON request a line on standard input (``notebook``, ``cache``),
    one JSON reply a line on standard output (``{"done": path}`` once the page is written to that
    file in the ``cache`` folder, named by ``page_name`` of the bytes read, or ``{"error": reason}``),
    until its input ends. It imports nbconvert and makes its exporter as it starts (``keep_ready``
    then has it ready), and with ``--warm`` makes a first conversion too (``_Exporter.warm_up``).
    What nbconvert prints goes to standard error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the build's to handle: this ends with its input
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr  # nothing but replies on the replies' pipe
    exporter = _ready_exporter(warm="--warm" in sys.argv[1:])
    for line in sys.stdin:
        request = json.loads(line)
        try:
            exporter = exporter or _Exporter()
            data = Path(request["notebook"]).read_bytes()
            out = Path(request["cache"]) / page_name(data)
            _write_page(exporter.convert(Path(request["notebook"]), data), out)
            reply = {"done": str(out)}
        except Exception as error:  # noqa: BLE001 - reported to the build, which names the notebook
            reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
            reply = {"error": f"{Path(request['notebook']).name}: {type(error).__name__}: {reason}"}
        try:
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
        except BrokenPipeError:  # the build is gone (ended by a signal): so is whom to tell
            os._exit(0)


if __name__ == "__main__":
    main()
