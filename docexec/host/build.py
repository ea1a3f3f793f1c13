"""One build of the site: its run, its pages, the places left in them for outputs and figures.

A ``Build`` is made for each build (each ``mkdocs serve`` rebuild too) and holds that build's
state: the pages read (``docexec.source.includes.Page``, each read once), the places the Markdown
extension left in their HTML, the figures drawn. Its ``Runner`` outlives it: one per repository
and process, so that a worker started early serves the next run.

The one placeholder scheme: each place is an HTML comment ``<!--docexec-<token>-<n>-->`` (``n``
indexes ``Build.places``; the token is random per build, so no page text can pass for one), and
the drawing inside a figure is such a place too until it is put in, as is the content of a
chapter notebook's page. ``fill`` puts in whatever a place stands for; with ``late=False`` it
leaves the drawings' and notebooks' places for a later ``fill`` (the MkDocs hook fills them after
the search plugin has read the page, which need not parse thousands of SVG elements: a figure's
words are in its caption and alt text; notebook pages are not searched).
"""

from __future__ import annotations

import os
import re
import sys
import threading
import uuid
from hashlib import sha256
from pathlib import Path

from docexec.core.problems import Problem
from docexec.graphs import figures, teach
from docexec.host import renderers
from docexec.notebooks.notebook_html import NOTEBOOK_HTML_CACHE, Converter, NotebookPages
from docexec.notebooks.notebook_jobs import NotebookJobs
from docexec.pages import quoted, render
from docexec.pages.page_store import PAGE_HTML_CACHE, PageStore
from docexec.pages.places import Drawing, Place
from docexec.run.results import Results
from docexec.run.runner import Runner
from docexec.source.includes import Page, parse_page
from docexec.source.snippets import SNIPPETS_DIR, files_under
from docexec.versions import drift


def page_key(text: str) -> str:
    """What a page's Markdown is known by within a build: the SHA-256 of its text."""
    return sha256(text.encode()).hexdigest()


#: The marker of a place of any build (``Build.token`` is a uuid4 hex), as ``Build._marker`` spells
#: one of its own: an HTML comment, filled in after the search index has read the page.
ANY_PLACE = re.compile(r"<!--docexec-[0-9a-f]{32}-\d+-->")

#: How a preview build writes a committed DOT file's problem, which does not fail it.
PREVIEW_NOTICE = "docexec: the page shows the run's figure; `make build` fails until `make fix` runs: "


class BuildError(Exception):
    """The build must stop: every problem found, each a ``file:line: reason``."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class Build:
    """The state of one build.

    Args:
        runner: the repository's runner (``runner_for``).
        include_paths: the folders includes come from, relative to the root (``pymdownx.snippets``'
            ``base_path``).
        docs_dir: the pages' folder, relative to the root (names pages in messages when a host
            does not say which page it converts).
        watch: note the files read, to tell when the build is ``stale``.
        preview: a preview server's build (``mkdocs serve``): a committed DOT file that no longer
            matches its run does not fail it (``check``).
    """

    def __init__(self, runner: Runner, include_paths: list[str] | None = None, docs_dir: str = "docs",
                 watch: bool = False, preview: bool = False):
        self.runner = runner
        self.preview = preview
        self.root = runner.root
        self.include_paths = list(include_paths or [runner.folder])
        self.docs_dir = docs_dir
        self.token = uuid.uuid4().hex
        self.places: list[Place] = []
        self.pages: dict[str, Page] = {}  # digest of a page's text -> its record
        self.drawings = figures.Drawings(self.root / figures.SVG_CACHE)
        self.notes: dict[str, str] = {}  # digest of a page's text -> extra HTML under its title
        self.checked: Results | None = None  # the complete results, once checked (check)
        self.notebooks: dict[str, Page] = {}  # a chapter notebook's path in the site -> its page
        self.notebook_pages = NotebookPages(self.root / NOTEBOOK_HTML_CACHE, converter_for(self.root))  # their HTML
        self.notebook_jobs: NotebookJobs | None = None  # what makes them (the MkDocs hook starts it)
        self.run_started = False  # whether the host started this build's run (runner.start)
        self.page_store = PageStore(self.root / PAGE_HTML_CACHE)  # pages' HTML kept between builds (the hook)
        self._diagram_problems: list[Problem] | None = None
        self.reported: set[str] = set()  # problems written to stderr (report_once)
        self._drawn = False  # draw_all done
        self._marker = re.compile(rf"<!--docexec-{self.token}-(\d+)-->(\n?)")
        self._lock = threading.Lock()
        self._stamp = self._files_now() if watch else None
        self.drift: drift.Record | None = None  # the drift record shown, if any (docexec.versions.drift)
        self.drift_problem: Problem | None = None  # why a drift record is not shown (stale), if so
        try:
            self.drift = drift.current(self.root, runner.folder)
        except drift.RecordNotShownError as refused:
            self.drift_problem = refused.problem

    def _files_now(self) -> list[tuple[str, int, int]]:
        """Name, size and modification time of every file the runs and figures come from."""
        found = []
        for folder in (self.runner.folder, figures.DIAGRAMS_DIR):
            for path in sorted(files_under(self.root, folder, "")):
                try:
                    stat = os.stat(os.path.join(self.root, path))
                except OSError:
                    continue
                found.append((path, stat.st_size, stat.st_mtime_ns))
        return found

    def stale(self) -> bool:
        """Whether a file under the snippets or diagrams folder was added, removed or changed since
        this build began (for a build begun with ``watch``; False otherwise)."""
        return self._stamp is not None and self._stamp != self._files_now()

    # -- pages ----------------------------------------------------------------------------------

    def page(self, text: str, name: str | None = None) -> Page:
        """The record of the page whose Markdown is ``text``, read once per build.

        ``name`` says which page it is (``docs/<page>.md``); without it, the page is looked up
        among the files of ``docs_dir`` by its text, as a Markdown extension is not told which
        page it converts."""
        key = page_key(text)
        with self._lock:
            if key not in self.pages:
                record = parse_page(text, name or self._locate(text), str(self.root), self.include_paths,
                                    self.runner.folder)
                for earlier in [k for k, page in self.pages.items() if page.name == record.name]:
                    del self.pages[earlier]  # the page as it was before an edit: its problems are gone
                self.pages[key] = record
            return self.pages[key]

    def _locate(self, text: str) -> str:
        folder = self.root / self.docs_dir
        for path in sorted(folder.rglob("*.md")) if folder.is_dir() else []:
            if path.read_text(encoding="utf-8").rstrip("\n").endswith(text.rstrip("\n")):
                return path.relative_to(self.root).as_posix()
        return "<page>"

    def note_for(self, text: str, html: str) -> None:
        """Show ``html`` under the title of the page whose Markdown is ``text`` (notebook links)."""
        self.notes[page_key(text)] = html

    # -- places ---------------------------------------------------------------------------------

    def place(self, place: Place) -> str:
        """Keep ``place`` and return the HTML comment that stands for it."""
        with self._lock:
            self.places.append(place)
            return f"<!--docexec-{self.token}-{len(self.places) - 1}-->"

    def detach(self, html: str) -> tuple[str, list[Place]]:
        """``html`` of a page converted in this build, to keep for a later one (``attach``): each
        place in it numbered by its position in the list of places also returned."""
        places: list[Place] = []

        def number(match: re.Match) -> str:
            places.append(self.places[int(match.group(1))])
            return f"<!--docexec-{self.token}-{len(places) - 1}-->{match.group(2)}"

        return self._marker.sub(number, html), places

    def attach(self, html: str, token: str, places: list[Place]) -> str:
        """``html`` detached by the build of ``token`` (``detach``), with ``places`` left in this
        build as the places they stand for."""
        marker = re.compile(rf"<!--docexec-{re.escape(token)}-(\d+)-->")
        return marker.sub(lambda match: self.place(places[int(match.group(1))]), html)

    def fill(self, html: str, results: Results, late: bool = True) -> str:
        """Put into ``html`` what each place left in it stands for, from ``results``; with
        ``late=False``, leave the places of figures' drawings and of notebook pages' content (a
        later ``fill`` puts them in).

        A place that turns out empty (a snippet that wrote nothing and drew no graph) is removed
        with the line break after it. A figure is drawn once per page in each ``html`` filled: a
        page converted again (a preview server) shows its figures again.

        Raises:
            UnknownTargetError: an include names a snippet without a result or a section it does not mark.
            GraphvizError: a figure could not be drawn.
        """
        if f"<!--docexec-{self.token}-" not in html:
            return html
        shown: dict[str, dict[str, tuple[str, str]]] = {}  # page -> DOT drawn -> (anchor, example)

        def put(match: re.Match) -> str:
            place = self.places[int(match.group(1))]
            if place.late and not late:
                return match.group(0)
            filled = renderers.RENDERERS[type(place)](self, place, results, shown)
            if place.holds_places:  # its HTML may hold places of its own, and code that gets tooltips
                filled = self._marker.sub(put, render.abbreviate_code(filled, place.terms))
            return filled + match.group(2) if filled else ""

        return self._marker.sub(put, html)

    def figure(self, figure: render.Figure, anchor: str = "") -> str:
        """A figure whose drawing is left as a place of its own."""
        return render.figure_html(self.place(Drawing(figure=figure)), figure.caption, anchor)

    def page_figure(self, shown: dict[str, tuple[str, str]], figure: render.Figure) -> str:
        """An example's figure on a page whose figures so far are ``shown`` (DOT -> anchor, example):
        under the page's first figure the key to the figures; a figure the page shows already is not
        drawn again, the page says where it is."""
        name = figure.name.removeprefix(f"{self.runner.folder}/")
        if figure.dot in shown:
            return render.same_figure_html(name, *shown[figure.dot])
        anchor = render.slug(name) + "-figure"
        shown[figure.dot] = (anchor, name)
        legend = self._legend() + "\n" if len(shown) == 1 else ""
        return legend + self.figure(figure, anchor)

    def _legend(self) -> str:
        """The legend of the figures (the page calls it the key to the figures): what every box, line
        and mark in them means (``teach.legend_dot``)."""
        dot = teach.legend_dot()
        drawn = self.figure(render.Figure("key", dot, "Key to the figures: " + teach.LEGEND_WORDS, ""))
        return render.legend_html(drawn)

    # -- checks ---------------------------------------------------------------------------------

    def check(self) -> Results:
        """Wait for the whole run and check it, once per build: every run failure, claim that does
        not hold and stale, missing or orphaned DOT file, and every bad include of the pages read.
        In a ``preview`` build a DOT file's problem is written to stderr, not raised: the page shows
        the figure its run drew, and ``make fix`` brings the committed file up to date later.

        Returns:
            The complete results.

        Raises:
            BuildError: with every problem found.
            ExecutionError: the worker could not run the snippets.
        """
        if self.checked is None:
            results = self.runner.wait()
            problems = [p for page in self.pages.values() for p in page.problems]
            problems += results.problems(diagrams=not self.preview)
            if self.preview:
                self.report_once(results.diagram_problems(), PREVIEW_NOTICE)
            problems += [p for page in self.pages.values() for p in quoted.problems(page, results)]
            problems += self.diagram_problems()
            if problems:
                raise BuildError(problems)
            self.checked = results
            if results.execute:  # without runs a quote shows its expression: nothing to compare
                pages = list(self.pages.values())
                changes = quoted.changed_since_last_build(self.root, [page.name for page in pages],
                                                          quoted.shown_values(pages, results))
                for change in changes:
                    print(f"docexec: a quoted value changed: {change}", file=sys.stderr)
        return self.checked

    def diagram_problems(self) -> list[Problem]:
        """What is wrong with the hand-written diagrams (``figures.check_hand_drawn``), looked at once
        per build: they depend on no run, so a host can ask before the snippets are in.

        Raises:
            GraphvizError: ``dot`` is not installed.
        """
        if self._diagram_problems is None:
            self._diagram_problems = figures.check_hand_drawn(self.root, self.drawings)
        return self._diagram_problems

    def report_once(self, problems: list[Problem], prefix: str = "") -> None:
        """Write each of ``problems`` to stderr once in this build (a preview server converts every
        page, and each may meet the same problem), after ``prefix``."""
        for problem in problems:
            if str(problem) not in self.reported:
                self.reported.add(str(problem))
                print(prefix + str(problem), file=sys.stderr)
        sys.stderr.flush()

    def draw_all(self, results: Results) -> None:
        """Draw every figure this build shows (in parallel), and drop the stored drawings it does not
        use; once per build."""
        if self._drawn:
            return
        self._drawn = True
        dots = list(results.graphs().values()) + figures.hand_drawn(self.root) + [teach.legend_dot()]
        self.drawings.draw_many(dots)
        if results.execute:  # without execution no graph is known: every drawing would look unused
            self.drawings.prune(dots)


def summary(problems: list[Problem]) -> str:
    """One line per failing file (its first problem), under a count: how a failed build ends."""
    first: dict[str, str] = {}
    for problem in problems:
        first.setdefault(problem.path, str(problem))
    lines = "\n".join(f"  {line}" for line in first.values())
    return (f"{len(first)} file(s) failed ({len(problems)} problem(s) in all); the first problem of each:\n{lines}\n"
            "Fix the snippet or page, or run `make fix` if only a claimed output or a diagram is out of date.")


def exit_with(problems: list[Problem]) -> None:
    """End this process with status 1 after writing every problem, then the summary, to stderr:
    how a build fails on a host that runs no hook of ours (a Markdown extension's exception would
    end it with a traceback instead). Every runner of this process is stopped first."""
    for problem in problems:
        print(str(problem), file=sys.stderr)
    print(f"docexec: {summary(problems)}", file=sys.stderr)
    sys.stderr.flush()
    sys.stdout.flush()
    for runner in list(_RUNNERS.values()):
        runner.close()
    os._exit(1)


_RUNNERS: dict[tuple[Path, str], Runner] = {}
_CONVERTERS: dict[Path, Converter] = {}
_BUILDS: dict[tuple[Path, str], Build] = {}
_REGISTRY = threading.Lock()


def runner_for(root: Path, folder: str = SNIPPETS_DIR) -> Runner:
    """The runner of a repository in this process (one per root and folder).

    The environment variable ``DOCEXEC_EXECUTE=0`` switches execution off (``Runner(execute=False)``);
    ``DOCEXEC_CACHE=0`` switches the run cache off.
    """
    key = (Path(root).resolve(), folder)
    with _REGISTRY:
        if key not in _RUNNERS:
            _RUNNERS[key] = Runner(key[0], folder, cache=os.environ.get("DOCEXEC_CACHE", "1") != "0",
                                   execute=os.environ.get("DOCEXEC_EXECUTE", "1") != "0")
        return _RUNNERS[key]


def converter_for(root: Path) -> Converter:
    """The process that converts a repository's notebooks to pages, in this process (one per root,
    started at its first conversion; ``mkdocs serve`` rebuilds share it)."""
    key = Path(root).resolve()
    with _REGISTRY:
        return _CONVERTERS.setdefault(key, Converter(key))


def begin(root: Path, folder: str = SNIPPETS_DIR, include_paths: list[str] | None = None,
          docs_dir: str = "docs", watch: bool = False, start: bool = True, preview: bool = False) -> Build:
    """Start a new build of a repository: a new ``Build`` becomes its current one and its run starts
    (unless not ``start``: the caller then starts ``build.runner`` itself, once it knows what to run
    first). With ``watch``, the build notes its files, to tell when it is ``stale``; ``preview``:
    see ``Build``.

    Raises:
        ExecutionError: the worker could not be started.
    """
    build = Build(runner_for(root, folder), include_paths, docs_dir, watch, preview)
    with _REGISTRY:
        _BUILDS[(build.root, folder)] = build
    if start:
        build.runner.start()
    return build


def current(root: Path, folder: str = SNIPPETS_DIR) -> Build | None:
    """The build of a repository under way in this process, if one was begun."""
    return _BUILDS.get((Path(root).resolve(), folder))


def end(build: Build) -> None:
    """Forget ``build`` (its pages, places and drawings); its runner stays for the next build."""
    with _REGISTRY:
        if _BUILDS.get((build.root, build.runner.folder)) is build:
            del _BUILDS[(build.root, build.runner.folder)]


def under_way() -> list[Build]:
    """Every build begun in this process and not ended."""
    with _REGISTRY:
        return list(_BUILDS.values())


def runners() -> list[Runner]:
    """Every runner made in this process."""
    return list(_RUNNERS.values())


def converters() -> list[Converter]:
    """Every notebook converter made in this process."""
    return list(_CONVERTERS.values())
