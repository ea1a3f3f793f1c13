"""Graph figures: committed DOT files under ``diagrams/``, kept in step with the runs, drawn as SVG.

* Every snippet whose run leaves a recorded graph has its DOT committed at
  ``diagrams/<chapter>/<example>.dot`` (``snippets/<chapter>/<example>.py``), with a first line
  saying it is generated. A committed file that differs from what the snippet now draws, a missing
  one, and a generated one whose snippet no longer draws anything are problems; ``make fix``
  writes or removes them (``sync``).
* DOT files without that first line (``diagrams/concepts/*.dot``) are written by hand.
* SVG is made at build time by Graphviz's ``dot`` and never committed, because Graphviz writes its
  own version into every SVG.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from docexec.core.files import remove_unused, sealed, unsealed, write_atomically
from docexec.core.problems import Problem
from docexec.source.snippets import files_under

DIAGRAMS_DIR = "diagrams"
SVG_CACHE = ".cache/docexec/svg"  # relative to the repository root
HEADER = "// Generated from {snippet} by docexec; do not edit. Regenerate it with: make fix\n"
_HEADER_RE = re.compile(r"^// Generated from (?P<snippet>\S+) by docexec;")
INSTALL_HINT = ("install Graphviz: sudo apt-get install -y graphviz (Debian/Ubuntu) or brew install graphviz (macOS)")


class GraphvizError(RuntimeError):
    """Graphviz's ``dot`` is missing or could not draw a DOT source; the message is one line."""


def diagram_path(snippet: str, snippets_dir: str = "snippets") -> str:
    """``snippets/<chapter>/<example>.py`` -> ``diagrams/<chapter>/<example>.dot``."""
    rel = Path(snippet).relative_to(snippets_dir).with_suffix(".dot")
    return f"{DIAGRAMS_DIR}/{rel.as_posix()}"


def committed_text(snippet: str, dot: str) -> str:
    """The exact text of the committed DOT file for ``snippet``: the generated header, then ``dot``."""
    return HEADER.format(snippet=snippet) + dot


def generated_by(text: str) -> str | None:
    """The snippet a committed DOT file was generated from, or None for a hand-written one."""
    match = _HEADER_RE.match(text)
    return match.group("snippet") if match else None


def check(root: Path, graphs: dict[str, str], ran: set[str], snippets_dir: str = "snippets") -> list[Problem]:
    """Compare committed DOT files with the graphs the runs drew.

    Args:
        root: the repository root.
        graphs: snippet path -> DOT text for every snippet that ran and drew a graph.
        ran: the snippets that ran (a generated file of one that ran and drew nothing is an orphan).
        snippets_dir: the snippets folder, relative to ``root``.

    Returns:
        One problem per missing, stale or orphaned generated DOT file, naming that file.
    """
    problems = []
    committed = _dot_files(root)
    for snippet, dot in sorted(graphs.items()):
        path = diagram_path(snippet, snippets_dir)
        if path not in committed:
            problems.append(Problem(path, 0, f"is missing: {snippet} draws a graph (run `make fix` to write it)"))
        elif committed[path] != committed_text(snippet, dot):
            problems.append(Problem(path, 0, f"is stale: {snippet} now draws a different graph "
                                             "(run `make fix` to update it)"))
    for path in orphans(root, graphs, ran, committed):
        problems.append(Problem(path, 0, "was generated from a snippet that no longer draws a graph or no longer "
                                         "exists (run `make fix` to remove it)"))
    return problems


def orphans(root: Path, graphs: dict[str, str], ran: set[str], committed: dict[str, str] | None = None) -> list[str]:
    """Generated DOT files whose snippet is gone, or ran and no longer draws a graph.

    ``committed`` is ``_dot_files(root)`` if the caller has read them already.
    """
    found = []
    for path, text in (_dot_files(root) if committed is None else committed).items():
        snippet = generated_by(text)
        if snippet and snippet not in graphs and (snippet in ran or not (Path(root) / snippet).is_file()):
            found.append(path)
    return found


def _dot_files(root: Path) -> dict[str, str]:
    """Every DOT file under ``diagrams/`` (``snippets.files_under``): its path relative to ``root``
    -> its text, in the order ``Path`` objects sort."""
    found = {}
    for path in sorted(files_under(root, DIAGRAMS_DIR, ".dot"), key=lambda path: path.split("/")):
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            found[path] = handle.read()
    return found


def hand_drawn(root: Path) -> list[str]:
    """The DOT text of every diagram under ``root/diagrams/`` written by hand (no ``// Generated
    from`` first line): what a page may show through an image line (``docexec.host.markdown_ext``)."""
    return [text for text in _dot_files(root).values() if not generated_by(text)]


def sync(root: Path, graphs: dict[str, str], ran: set[str], snippets_dir: str = "snippets") -> list[str]:
    """Write every missing or stale generated DOT file and delete orphans; return what changed.

    Returns:
        Lines like ``diagrams/ch/x.dot: written`` / ``updated`` / ``removed``.
    """
    changes = []
    for snippet, dot in sorted(graphs.items()):
        target = Path(root) / diagram_path(snippet, snippets_dir)
        text = committed_text(snippet, dot)
        if target.is_file() and target.read_text(encoding="utf-8") == text:
            continue
        verb = "updated" if target.is_file() else "written"
        write_atomically(target, text)
        changes.append(f"{target.relative_to(root).as_posix()}: {verb}")
    for path in orphans(root, graphs, ran):
        (Path(root) / path).unlink()
        changes.append(f"{path}: removed")
    return changes


def find_dot() -> str:
    """The path of Graphviz's ``dot`` on PATH.

    Raises:
        GraphvizError: ``dot`` is not on PATH (the message says how to install it).
    """
    program = shutil.which("dot")
    if program is None:
        raise GraphvizError(f"Graphviz's dot program is not on PATH; {INSTALL_HINT}")
    return program


def _key(program: str, dot: str) -> str:
    return hashlib.sha256(f"{program}\0{dot}".encode()).hexdigest()


#: Seconds one ``dot`` process may take (a batch of small graphs takes well under one).
DOT_TIMEOUT = 60.0


def _run_dot(program: str, source: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([program, "-Tsvg"], input=source.encode(), capture_output=True, check=False,
                              timeout=DOT_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise GraphvizError(f"dot took longer than {DOT_TIMEOUT:g} s to draw a graph; draw fewer boxes") from None
    except OSError as exc:  # removed or broken since it was found
        raise GraphvizError(f"could not run {program}: {exc.strerror}; {INSTALL_HINT}") from None


def _draw(program: str, dot: str) -> str:
    """``dot -Tsvg`` of one source: the SVG document, as text."""
    proc = _run_dot(program, dot)
    if proc.returncode != 0:
        first = (proc.stderr.decode(errors="replace").strip().splitlines() or ["no message"])[0]
        raise GraphvizError(f"dot could not draw the graph: {first}")
    svg = proc.stdout.decode()
    if svg.count("<svg") != 1:
        raise GraphvizError(f"dot drew {svg.count('<svg')} graphs from one source; a figure is one graph")
    return svg


#: What starts each SVG document that ``dot -Tsvg`` writes.
_PROLOG = '<?xml version="1.0" encoding="UTF-8" standalone="no"?>'
#: The id of a document's top-level group: ``graph0`` alone, ``page0,1_graph0`` and so on after
#: the first graph of a batch.
_GRAPH_ID = re.compile(r'<g id="[^"]*" class="graph\b')
#: What a batch may draw differently from a lone drawing: Graphviz 2.43 writes clusters in an
#: order that depends on the graphs drawn before in the same process, and numbers gradient fills
#: across them.
#: Matched as attributes, not words: a label may say "gradient" (most of the course's figures do).
_NOT_BATCHED = re.compile(
    r"\bsubgraph\b|\bcluster|gradientangle\s*=|style\s*=\s*\"?[^\"\]]*radial|color\s*=\s*\"[^\"]*:", re.I
)
#: The opening line of a named graph, as ``docexec.graphs.graph.to_dot`` writes it.
_GRAPH_LINE = re.compile(r"^(?:strict\s+)?(?:di)?graph\s+(\w+)\s*\{", re.I | re.M)
_TITLE = re.compile(r"<!-- Title: (\S+) Pages: ")


def _batchable(dot: str) -> str | None:
    """The graph name if ``dot`` may go into a batch: exactly one named graph, nothing in
    ``_NOT_BATCHED``; else None (it is drawn alone)."""
    names = _GRAPH_LINE.findall(dot)
    return names[0] if len(names) == 1 and not _NOT_BATCHED.search(dot) else None


def _draw_batch(program: str, dots: list[str]) -> list[str] | None:
    """``dot -Tsvg`` of several sources in one process: each one's SVG document, the same bytes as
    ``_draw`` gives for it alone, or None if dot failed on any of them (draw them one by one then).

    One process per graph costs about 20 ms of start-up (Graphviz loads its plugins and fonts), more
    than laying out a small graph. ``dot`` reads any number of graphs from its input and writes one
    SVG document for each; they differ from a lone graph's only in the top-level group's id, which
    is set back to ``graph0`` here. Only sources that ``_batchable`` accepts are batched, and each
    document must carry its source's graph name as its title.
    ``tests/test_figures.py`` compares batched and lone drawings of every diagram in the repository.
    """
    proc = _run_dot(program, "".join(dot if dot.endswith("\n") else dot + "\n" for dot in dots))
    documents = proc.stdout.decode().split(_PROLOG)[1:]
    if proc.returncode != 0 or len(documents) != len(dots):
        return None
    titles = [_TITLE.search(document) for document in documents]
    if [title.group(1) if title else None for title in titles] != [_batchable(dot) for dot in dots]:
        return None  # a document that is not its source's: never stored under the wrong key
    return [_GRAPH_ID.sub('<g id="graph0" class="graph', _PROLOG + document, count=1) for document in documents]


#: A box's name as Graphviz titles it, then the link it makes of a ``tooltip`` attribute: the
#: name goes, the tooltip takes its place as the box's ``<title>``, which browsers show on hover.
_TOOLTIP = re.compile(r'<title>[^<]*</title>\n<g id="(a_[^"]+)"><a xlink:title="([^"]*)">\n(.*?)</a>\n</g>\n', re.S)
#: A box or edge as Graphviz opens it, with the title that names it in the DOT source (``n0``,
#: ``t1``, ``n0->n1``): the name is kept as the group's ``data-dot`` (what the step-through of
#: ``docs/javascripts/steps.js`` reads the graph from), the title goes.
_NAMED = re.compile(r'(<g id="[^"]*" class="(?:node|edge)\b[^"]*")>\n<title>([^<]*)</title>')
#: The titles Graphviz gives every graph, box and edge (their DOT names: n0, t1, n0->n1), where
#: no tooltip follows to take their place.
_NAME_TITLE = re.compile(r'<title>[^<]*</title>(?!\n<g id="a_)\n?')

#: An image Graphviz put in its SVG (``image=``, ``shapefile=``): a path on the building machine.
_IMAGE = re.compile(r"<image\b[^>]*>(?:</image>)?")
#: A link in Graphviz's SVG (from a ``URL`` or ``href`` attribute in the DOT source).
_LINK = re.compile(r'\s(xlink:href|href)="([^"]*)"')


def _safe_link(value: str) -> bool:
    """Whether a link may go into a page: relative (no scheme) or ``http(s)://``; never ``javascript:``
    or ``data:``. ``value`` is as Graphviz wrote it (HTML-escaped); browsers drop tabs and line
    breaks inside a scheme, so these are dropped before looking."""
    from html import unescape

    plain = re.sub(r"[\x00-\x20]", "", unescape(value)).lower()
    return re.match(r"^[a-z][a-z0-9+.-]*:", plain) is None or plain.startswith(("http:", "https:"))


def check_hand_drawn(root: Path, drawings: Drawings) -> list[Problem]:
    """Draw every hand-written diagram under ``diagrams/`` (no ``// Generated from`` line): one
    problem, naming its file, for each that Graphviz cannot draw or that links anywhere but to a
    relative or http(s) address.

    Raises:
        GraphvizError: ``dot`` is not installed.
    """
    problems = []
    drawings.program  # noqa: B018 - a missing dot is the build's problem, not a diagram's
    for path, text in _dot_files(Path(root)).items():
        if generated_by(text):
            continue
        try:
            drawings.svg(text)
        except GraphvizError as exc:
            problems.append(Problem(path, 0, f"Graphviz cannot draw it: {exc}"))
            continue
        svg = drawings._svg[drawings.key(text)]
        bad = [m.group(2) for m in _LINK.finditer(svg) if not _safe_link(m.group(2))]
        if _IMAGE.search(svg):
            problems.append(Problem(path, 0, "draws an image file (image= or shapefile=): the page would point at a "
                                             "file of the machine that built it; a diagram may not use images"))
        elif bad:
            problems.append(Problem(path, 0, f"links to {bad[0]!r}: a diagram may link only to relative or "
                                             "http(s) addresses (the link is left out of the page)"))
    return problems


class Drawings:
    """The figures of one build: ``dot`` looked up once (so a long-running server notices Graphviz
    installed or removed between builds), each DOT source drawn once, its SVG kept in memory for
    this build only and on disk in ``cache_dir`` (if given) for the next builds.

    Args:
        cache_dir: where drawings are stored between builds (``SVG_CACHE`` under the root), or None.

    Raises:
        GraphvizError: ``dot`` is not on PATH (raised by the first method that needs it).
    """

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._program: str | None = None
        self._svg: dict[str, str] = {}  # key -> dot's SVG output
        self._clean: dict[str, str] = {}  # key -> the SVG element without prolog, comments and titles

    @property
    def program(self) -> str:
        """The ``dot`` this build draws with (``find_dot``, once)."""
        if self._program is None:
            self._program = find_dot()
        return self._program

    def key(self, dot: str) -> str:
        """The name a drawing of ``dot`` is stored under: the SHA-256 of the source and of ``dot``'s path."""
        return _key(self.program, dot)

    def _load(self, key: str) -> bool:
        """Whether the drawing ``key`` is in memory, after looking in ``cache_dir``."""
        if key not in self._svg and self.cache_dir is not None:
            try:
                with open(os.path.join(self.cache_dir, f"{key}.svg"), "rb") as handle:
                    svg = unsealed(key, handle.read())  # None: cut short, edited or copied from another key
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                return False
            if svg is not None:
                self._svg[key] = svg.decode("utf-8")
        return key in self._svg

    def _keep(self, key: str, svg: str) -> None:
        self._svg[key] = svg
        if self.cache_dir is not None:
            write_atomically(self.cache_dir / f"{key}.svg", sealed(key, svg.encode("utf-8")))

    def svg(self, dot: str, prefix: str = "fig") -> str:
        """Draw DOT text as an SVG element for inlining in a page.

        The XML prolog, DOCTYPE, Graphviz's version comment and the per-element ``<title>`` tooltips
        are removed (a box's or edge's DOT name stays as its ``data-dot``), and every ``id`` gets
        ``prefix`` so that several figures can share one page.

        Raises:
            GraphvizError: ``dot`` is not installed, or rejected the source (its first error line).
        """
        key = self.key(dot)
        if not self._load(key):
            self._keep(key, _draw(self.program, dot))
        if key not in self._clean:
            svg = self._svg[key]
            svg = svg[svg.index("<svg"):]
            svg = re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)
            svg = _IMAGE.sub("", svg)
            svg = _LINK.sub(lambda m: m.group(0) if _safe_link(m.group(2)) else "", svg)
            svg = _NAMED.sub(r'\1 data-dot="\2">\n<title>\2</title>', svg)
            svg = _NAME_TITLE.sub("", svg)
            self._clean[key] = _TOOLTIP.sub(r"<title>\2</title>\n\3", svg).strip()  # a tooltip: the SVG title
        return self._clean[key].replace(' id="', f' id="{prefix}-')

    def draw_many(self, dots: list[str], jobs: int | None = None) -> None:
        """Draw the DOT sources not drawn yet, so that ``svg`` finds them.

        They are shared out among ``jobs`` (default: one per core) ``dot`` processes at once, each
        drawing its share in one go (``_draw_batch``); sources that ``_batchable`` refuses (clusters,
        gradients, not exactly one named graph), and the share of a process that failed, are drawn
        one by one.

        Raises:
            GraphvizError: as ``svg``, for the first source that failed.
        """
        program = self.program
        todo = [dot for dot in dict.fromkeys(dots) if not self._load(self.key(dot))]
        names = {dot: _batchable(dot) for dot in todo}
        alone = [dot for dot in todo if names[dot] is None]
        batched = [dot for dot in todo if names[dot] is not None]
        workers = max(1, jobs or os.cpu_count() or 1)
        shares = [batched[i::workers] for i in range(workers) if batched[i::workers]]

        def draw_share(share: list[str]) -> None:
            documents = _draw_batch(program, share) if len(share) > 1 else None
            if documents is None:
                alone.extend(share)  # drawn one by one below, so that a failure names its own reason
                return
            for dot, svg in zip(share, documents, strict=True):
                self._keep(self.key(dot), svg)

        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(draw_share, shares))
            list(pool.map(self.svg, alone))

    def prune(self, dots: list[str], stale_after: float = 600.0) -> int:
        """Remove the drawings in ``cache_dir`` that none of ``dots`` (DOT sources) uses, and temporary
        files older than ``stale_after`` seconds (left by a process that died mid-write).

        Returns:
            How many files were removed; a file removed meanwhile by another process is skipped.
        """
        if self.cache_dir is None:
            return 0
        keep = {f"{self.key(dot)}.svg" for dot in dots}
        return remove_unused(self.cache_dir, lambda name: name.endswith(".svg") and name not in keep, stale_after)
