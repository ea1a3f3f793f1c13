"""Build-time benchmark (`make bench`): the project against markdown-exec and plain Material (BASE).

Every figure is a whole command in a fresh process (a `mkdocs build`, or a file written under a
running `mkdocs serve` until its reload), run in temporary copies of the site: nothing here
touches the repository but the side environment under ``.cache/bench/``. Three sites are made from
the project's pages, with the same pages, examples and theme:

* project: the site as it is (the docexec hook and Markdown extension, mkdocs-jupyter), built with
  ``--strict`` as ``make build`` does;
* BASE: plain Material building the same pages with the code shown, not executed: a generated
  mkdocs.yml without the docexec hook, the docexec Markdown extension and mkdocs-jupyter
  (pymdownx.snippets still includes the files); it has no cache, so every build is the same;
* markdown-exec 1.12.6: the same config with the ``markdown-exec`` plugin, and every fence that
  includes an example opened as ``python exec="on" source="above" result="text"``, so that the
  included source is run in the MkDocs process and its printed output shown under it. It has no
  cache either: each build runs every example. It needs only markupsafe and pymdown-extensions,
  which the project has; it is installed, pinned, in a side environment (``.cache/bench/markdown-
  exec``, made by ``python -m venv --without-pip`` whose ``.pth`` file adds the project's
  site-packages), never into the project's .venv.

The same is done with a 10x site (``--skip-scaling`` leaves it out): each chapter page holds its
text ten times, each copy including copies of its examples (``scaled_copy``).

The builds are made in rounds (``--repeat``, 3 by default). A round makes every kind of build of
every site, one right after the other, and every ratio is computed within its round; the figure
printed is the median over the rounds, with each round's value beside it. The machine is shared
and its speed can change by a third from one minute to the next: within a round both sides of a
ratio see about the same machine. Every other round runs the sides in the opposite order, and the
warm builds are made in groups of four, project BASE BASE project (``--warm-groups``), each
side's figure being its mean, so that a steady drift does not favour one side.

A round, for each site size:

* cold: the project with empty caches (``.cache/`` removed), markdown-exec's build, BASE's build;
* warm: the project with nothing changed, against BASE;
* example edit: a line ``print("bench edit N")  # bench edit N`` appended to the first example
  of the first chapter, then the project rebuilt; prose edit: a sentence appended to that
  chapter's page, then the project rebuilt;
* recording (1x site only, ``--skip-recording`` leaves it out): every example that asks for a
  teaching figure run with and without its recording (``tools/recording_cost.py``);
* serve (1x site only, ``--skip-serve`` leaves it out): each site under ``mkdocs serve``; the
  same edits (``--serve-edits`` of each per side, their mean), each timed from the file write to
  the reload: MkDocs' livereload endpoint ``/livereload/<epoch>/<id>`` answers once a build newer
  than the page's epoch is visible; the page is then fetched and must show the edit (else the
  next reload is waited for). The prose edit is not timed for markdown-exec (no target uses it).

Peak memory: every build is waited for with ``os.wait4``, whose ``ru_maxrss`` is the largest
resident set any process of the build's tree reached (MkDocs, the project's worker, each example's
process), as ``getrusage(RUSAGE_CHILDREN)`` or ``/usr/bin/time -v`` report it.

Targets: cold <= 1.0 x markdown-exec (1x and 10x); warm <= 1.2 x BASE (1x) and <= 1.1 x BASE
(10x); an example edited under serve <= 1.0 x markdown-exec's and <= BASE's + 0.3 s; a prose edit
under serve <= 1.1 x BASE's; recording a teaching figure <= 5 ms per example that asks for one.

Usage: python tools/bench.py [--repeat N] [--warm-groups N] [--serve-edits N] [--skip-scaling] [--skip-serve]
                             [--skip-recording]
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml
from mkdocs.utils.yaml import get_yaml_loader
from recording_cost import RecordingCost, recording_cost

ROOT = Path(__file__).resolve().parent.parent
SITE_PARTS = ["docs", "snippets", "diagrams", "hooks", "includes", "docexec", "mkdocs.yml"]
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH="0")
MARKDOWN_EXEC = ("markdown-exec", "1.12.6")
SIDE_ENV = ROOT / ".cache" / "bench" / "markdown-exec"
EXEC_OPTIONS = 'exec="on" source="above" result="text"'
MARKDOWN_EXEC_FAILED = "Execution of python code block exited with errors"
SCALE = 10
SERVE_TIMEOUT = 600.0  # seconds a serve may take to start, or an edit to show


# ---------------------------------------------------------------------------------------------
# Running builds


@dataclass
class Run:
    """One command's wall-clock seconds, its tree's CPU seconds (user + system) and peak resident
    set (MiB), and its log."""

    seconds: float
    cpu: float
    peak_mib: float
    log: str


def run(command: list[str], cwd: Path, log: Path) -> Run:
    """Run ``command`` in ``cwd`` (output to ``log``) and time it; exit with its log's end if it fails.

    The process is waited for with ``os.wait4``: its usage covers the process and every descendant
    it waited for; ``ru_maxrss`` is the largest resident set among them (KiB on Linux, bytes on
    macOS), as ``/usr/bin/time -v`` reports it.
    """
    with open(log, "w", encoding="utf-8") as out:
        started = time.perf_counter()
        proc = subprocess.Popen(command, cwd=cwd, env=ENV, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = log.read_text(encoding="utf-8", errors="replace")
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed (status {proc.returncode}) in {cwd}:\n{text[-3000:]}")
    peak = usage.ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)
    return Run(seconds, usage.ru_utime + usage.ru_stime, peak, text)


@dataclass
class Side:
    """A site to build: its folder, the interpreter that builds it and whether builds are strict."""

    name: str
    folder: Path
    python: str
    strict: bool = False

    def build(self) -> Run:
        """A whole `mkdocs build` of the site into ``out/``."""
        command = [self.python, "-m", "mkdocs", "build", "--site-dir", str(self.folder / "out")]
        return run(command + (["--strict"] if self.strict else []), self.folder, self.folder.parent / "build.log")

    def clear_caches(self) -> None:
        """Remove the site's caches (``.cache/``: runs, figures, notebooks, mkdocs-jupyter's)."""
        shutil.rmtree(self.folder / ".cache", ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The sites


def copy_site(target: Path, source: Path = ROOT) -> None:
    """Copy what a build reads (pages, examples, diagrams, hook, includes, docexec, mkdocs.yml), and
    compile the copy's docexec and hook to bytecode, as ``make setup`` does in the repository (and
    pip does for every installed package, markdown-exec and Material among them)."""
    for part in SITE_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source / part, target / part)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "docexec", "hooks"], cwd=target, check=True,
                   stdout=subprocess.DEVNULL)


def scaled_copy(site: Path, target: Path, factor: int) -> int:
    """A site with ``factor`` times the examples, on the same pages; returns the example count.

    Each chapter page gets ``factor - 1`` copies of its text appended, each copy including copies
    of the chapter's examples (``snippets/<chapter>-<n>/``) and titled as a section of its own.
    The pages, the navigation and the chapter notebooks stay as many as before, so what grows is
    what grows with each example (its run, claims, figure, output block, notebook cells and search
    text), not what each page costs. ``docexec fix`` then writes the copies' DOT files.
    """
    copy_site(target, site)
    for page in sorted((target / "docs").glob("[0-9][0-9]-*.md")):
        text = page.read_text(encoding="utf-8")
        copies = []
        for copy in range(1, factor):
            body = text
            for chapter in sorted(set(re.findall(r'--8<-- "([\w-]+)/', text))):
                shutil.copytree(site / "snippets" / chapter, target / "snippets" / f"{chapter}-{copy}",
                                dirs_exist_ok=True)
                body = body.replace(f'--8<-- "{chapter}/', f'--8<-- "{chapter}-{copy}/')
            copies.append(re.sub(r"^# (.+)$", rf"## \1 (copy {copy})", body, count=1, flags=re.M))
        page.write_text("\n\n".join([text.rstrip("\n")] + copies) + "\n", encoding="utf-8")
    fix = subprocess.run([sys.executable, "-m", "docexec", "fix"], cwd=target, env=ENV, capture_output=True, text=True)
    if fix.returncode != 0:
        raise SystemExit(f"docexec fix failed in the {factor}x site {target}:\n{(fix.stdout + fix.stderr)[-3000:]}")
    return len(list((target / "snippets").rglob("*.py")))


def plain_config(folder: Path, plugin: str | None) -> None:
    """Rewrite ``folder/mkdocs.yml`` for a site without docexec: no hook, no docexec extension, no
    mkdocs-jupyter, not strict (the hand-drawn ``.dot`` figures are then broken image links);
    ``plugin`` (markdown-exec) is added to the plugins."""
    with open(folder / "mkdocs.yml", encoding="utf-8") as handle:
        config = yaml.load(handle, Loader=get_yaml_loader())  # MkDocs' own loader: !ENV tags

    def name(item: str | dict) -> str:
        return item if isinstance(item, str) else next(iter(item))

    config.pop("hooks", None)
    config["strict"] = False
    config["markdown_extensions"] = [e for e in config["markdown_extensions"] if name(e) != "docexec.host.markdown_ext"]
    config["plugins"] = [p for p in config["plugins"] if name(p) != "mkdocs-jupyter"] + ([plugin] if plugin else [])
    (folder / "mkdocs.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True), encoding="utf-8")


def is_example(folder: Path, include: str) -> bool:
    """Whether an include names an example the project runs: a ``.py`` file under ``snippets/``
    whose name does not start with ``_`` (a section, ``file.py:name``, is not matched here)."""
    path = folder / "snippets" / include
    return include.endswith(".py") and not path.name.startswith("_") and path.is_file()


def exec_fences(folder: Path, text: str) -> tuple[str, int]:
    """A page with every ``python`` fence that includes an example opened as an ``exec="on"``
    fence; returns the page and the number of such fences. A fence right after a
    ``<!-- docexec: show -->`` line (shown, not run, by the project) is left as it is."""
    lines, count, previous = text.split("\n"), 0, ""
    for number, line in enumerate(lines[:-1]):
        opening = re.fullmatch(r"(\s*)```python\b(.*)", line)
        include = re.fullmatch(r'\s*--8<-- "([^"]+)"\s*', lines[number + 1])
        if opening and include and is_example(folder, include[1]) and previous != "<!-- docexec: show -->":
            lines[number] = f"{opening[1]}```python {EXEC_OPTIONS}{opening[2]}"
            count += 1
        previous = line.strip() or previous
    return "\n".join(lines), count


def derived_site(project: Path, target: Path, plugin: str | None) -> int:
    """Copy the project's site to ``target`` as a site without docexec (BASE, or markdown-exec when
    ``plugin`` is given, its example fences then executed); returns the number of ``exec`` fences."""
    shutil.copytree(project, target, ignore=shutil.ignore_patterns(".cache", "out", "__pycache__"))
    plain_config(target, plugin)
    fences = 0
    if plugin:
        for page in (target / "docs").rglob("*.md"):
            text, count = exec_fences(target, page.read_text(encoding="utf-8"))
            page.write_text(text, encoding="utf-8")
            fences += count
    return fences


@dataclass
class Sites:
    """One size's three sites, and where an edit goes (the first example of the first chapter)."""

    label: str
    project: Side
    base: Side
    mdexec: Side
    examples: int
    page: Path  # the first chapter page, relative to a site's folder
    example: Path  # the first example it includes, relative to a site's folder

    @property
    def url(self) -> str:
        """The served path of the edited page."""
        return f"/{self.page.stem}/"


def make_sites(project: Path, label: str, mdexec_python: str) -> Sites:
    """BASE and markdown-exec sites next to the project's copy at ``project``; checks that every
    example has an ``exec`` fence in the markdown-exec site."""
    base, mdexec = project.parent / f"{project.name}-base", project.parent / f"{project.name}-markdown-exec"
    derived_site(project, base, None)
    fences = derived_site(project, mdexec, "markdown-exec")
    examples = len(list((project / "snippets").rglob("*.py")))
    if fences != examples:
        raise SystemExit(f"markdown-exec site: {fences} exec fences for {examples} examples")
    page = sorted((project / "docs").glob("[0-9][0-9]-*.md"))[0]
    first = re.search(r'--8<-- "([^"]+\.py)"', page.read_text(encoding="utf-8"))[1]
    return Sites(label, Side("project", project, sys.executable, strict=True), Side("BASE", base, sys.executable),
                 Side("markdown-exec", mdexec, mdexec_python), examples,
                 page.relative_to(project), Path("snippets") / first)


# ---------------------------------------------------------------------------------------------
# markdown-exec's side environment


def side_site_packages(python: Path) -> Path:
    """The site-packages folder of an interpreter."""
    command = [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    return Path(subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip())


def markdown_exec_python() -> str:
    """The interpreter of the side environment with markdown-exec installed (made on first use).

    ``.cache/bench/markdown-exec`` is a venv without pip whose ``project.pth`` adds the project's
    site-packages (``site.addsitedir``: their own ``.pth`` files are read too), so it sees MkDocs,
    Material, torch and the project's pip, which installs markdown-exec, pinned and without
    dependencies, into the side environment only.
    """
    name, version = MARKDOWN_EXEC
    python = SIDE_ENV / "bin" / "python"
    pth = f"import site; site.addsitedir({sysconfig.get_path('purelib')!r})\n"
    if python.exists() and installed_version(python, name) == version:
        current = side_site_packages(python) / "project.pth"
        if current.is_file() and current.read_text(encoding="utf-8") == pth:
            return str(python)
    shutil.rmtree(SIDE_ENV, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(SIDE_ENV)], check=True)
    (side_site_packages(python) / "project.pth").write_text(pth, encoding="utf-8")
    install = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", f"{name}=={version}"],
                             capture_output=True, text=True)
    if install.returncode != 0 or installed_version(python, name) != version:
        raise SystemExit(f"could not install {name}=={version} into {SIDE_ENV}:\n{install.stderr[-3000:]}")
    return str(python)


def installed_version(python: Path, name: str) -> str | None:
    """The version of ``name`` an interpreter sees, or None."""
    command = [str(python), "-c", f"import importlib.metadata as m; print(m.version({name!r}))"]
    found = subprocess.run(command, capture_output=True, text=True)
    return found.stdout.strip() if found.returncode == 0 else None


# ---------------------------------------------------------------------------------------------
# Edits


EDITS = itertools.count(1)


def edit_example(folder: Path, sites: Sites) -> str:
    """Append a print, with its claim, to the edited example; returns the text the page will show."""
    marker = f"bench edit {next(EDITS):04d}"
    with open(folder / sites.example, "a", encoding="utf-8") as handle:
        handle.write(f'\nprint("{marker}")  # {marker}\n')
    return marker


def edit_prose(folder: Path, sites: Sites) -> str:
    """Append a sentence to the edited page; returns it."""
    marker = f"An edited sentence, number {next(EDITS):04d}"
    with open(folder / sites.page, "a", encoding="utf-8") as handle:
        handle.write(f"\n{marker}.\n")
    return marker


# ---------------------------------------------------------------------------------------------
# mkdocs serve


def free_port() -> int:
    """A TCP port free on the loopback address just now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, timeout: float = SERVE_TIMEOUT) -> str:
    """The body of ``url`` as text."""
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8", errors="replace")


class Served:
    """A site under `mkdocs serve --livereload` on a free loopback port, for timing edits."""

    def __init__(self, side: Side, sites: Sites) -> None:
        self.side, self.sites, self.address = side, sites, f"127.0.0.1:{free_port()}"
        self.log = side.folder.parent / f"serve-{side.folder.name}.log"
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Served:
        command = [self.side.python, "-m", "mkdocs", "serve", "--livereload", "--dev-addr", self.address]
        with open(self.log, "w", encoding="utf-8") as out:
            self.proc = subprocess.Popen(command, cwd=self.side.folder, env=ENV, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        self.page()  # served once the first build is done
        return self

    def __exit__(self, *_exc: object) -> None:
        """Stop the server as Ctrl-C does (SIGINT to its process group), killing it after 30 s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def failed(self, why: str) -> SystemExit:
        """An exit naming the server and the end of its log."""
        text = self.log.read_text(encoding="utf-8", errors="replace")
        return SystemExit(f"mkdocs serve of {self.side.name} ({self.side.folder}): {why}\n{text[-3000:]}")

    def page(self) -> str:
        """The edited page as served (MkDocs holds the answer while a rebuild is under way)."""
        deadline = time.monotonic() + SERVE_TIMEOUT
        while True:
            try:
                return fetch(f"http://{self.address}{self.sites.url}")
            except OSError as error:  # not listening yet (the first build is under way)
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise self.failed(f"no page ({error})") from error
                time.sleep(0.1)

    def time_edit(self, edit: Callable[[Path, Sites], str]) -> float:
        """Seconds from an edit's file write to the reload that shows it.

        The page's livereload script holds the epoch of the build it came from; after the write,
        ``/livereload/<epoch>/<id>`` answers as soon as a newer build is visible (or after a
        minute, with the same epoch). The page must then hold the edit's text, else the next
        reload is waited for. A second's pause first lets a stray rebuild start, and reading the
        page waits for it to end.
        """
        time.sleep(1.0)
        epoch = int(re.search(r"livereload\((\d+),", self.page())[1])
        started = time.perf_counter()
        marker = edit(self.side.folder, self.sites)
        while time.perf_counter() - started < SERVE_TIMEOUT:
            try:
                answer = int(fetch(f"http://{self.address}/livereload/{epoch}/0"))
            except OSError as error:  # the server ended
                raise self.failed(f"no reload after the edit {marker!r} ({error})") from error
            seconds = time.perf_counter() - started
            if answer > epoch and marker in self.page():
                return seconds
            epoch = max(epoch, answer)
        raise self.failed(f"the edit {marker!r} was not shown within {SERVE_TIMEOUT:.0f} s")


# ---------------------------------------------------------------------------------------------
# Rounds


@dataclass
class Round:
    """One round's figures by name, such as ``1x project cold``: wall-clock seconds, and for builds
    their CPU seconds and peak memory (MiB)."""

    number: int
    seconds: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    peaks: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    recording: RecordingCost | None = None

    @property
    def flip(self) -> bool:
        """Whether this round runs the sides in the opposite order."""
        return self.number % 2 == 1

    def ordered(self, items: list) -> list:
        """``items`` in this round's order."""
        return items[::-1] if self.flip else items

    def record(self, name: str, results: list[Run]) -> None:
        """Keep the mean seconds and CPU seconds, and the highest peak memory, of builds of one kind."""
        self.seconds[name] = statistics.fmean(result.seconds for result in results)
        self.cpu[name] = statistics.fmean(result.cpu for result in results)
        self.peaks[name] = max(result.peak_mib for result in results)


def cold_builds(sites: Sites, rnd: Round) -> None:
    """The project with empty caches, markdown-exec and BASE, one after the other."""
    sites.project.clear_caches()
    for side in rnd.ordered([sites.project, sites.mdexec, sites.base]):
        result = side.build()
        rnd.record(f"{sites.label} {side.name} {'cold' if side is sites.project else 'build'}", [result])
        failed = result.log.count(MARKDOWN_EXEC_FAILED)
        if side is sites.mdexec and failed:
            rnd.notes.append(f"{sites.label} markdown-exec: {failed} of {sites.examples} blocks failed in-process")


def warm_builds(sites: Sites, rnd: Round, groups: int) -> None:
    """Groups of four builds, project BASE BASE project (the other way round every other round);
    each side's figure is its mean."""
    results: dict[str, list[Run]] = {"project": [], "BASE": []}
    for _ in range(groups):
        for side in rnd.ordered([sites.project, sites.base, sites.base, sites.project]):
            results[side.name].append(side.build())
    for name, runs in results.items():
        rnd.record(f"{sites.label} {name} warm", runs)


def edit_builds(sites: Sites, rnd: Round) -> None:
    """The project rebuilt after an example edit, then after a prose edit."""
    for kind, edit in (("example edit", edit_example), ("prose edit", edit_prose)):
        edit(sites.project.folder, sites)
        rnd.record(f"{sites.label} project {kind}", [sites.project.build()])


def build_round(sites: Sites, rnd: Round, warm_groups: int) -> None:
    """Every build of one size's sites for one round."""
    cold_builds(sites, rnd)
    warm_builds(sites, rnd, warm_groups)
    edit_builds(sites, rnd)


def serve_round(sites: Sites, rnd: Round, edits: int) -> None:
    """Each site under `mkdocs serve`: ``edits`` example edits, then (not for markdown-exec)
    ``edits`` prose edits, each timed to its reload; each figure is the mean."""
    for side in rnd.ordered([sites.project, sites.mdexec, sites.base]):
        kinds = [("example", edit_example)] + ([("prose", edit_prose)] if side is not sites.mdexec else [])
        with Served(side, sites) as server:
            for kind, edit in kinds:
                times = [server.time_edit(edit) for _ in range(edits)]
                rnd.seconds[f"serve {side.name} {kind}"] = statistics.fmean(times)


def torch_import(rnd: Round) -> None:
    """Seconds of ``python -c "import torch"``, for the record."""
    rnd.seconds["import torch"] = run([sys.executable, "-c", "import torch"], ROOT, Path(os.devnull)).seconds


# ---------------------------------------------------------------------------------------------
# Measures and the table


@dataclass(frozen=True)
class Check:
    """A target: the project's seconds at most ``limit`` times the other side's (``ratio``), or at
    most the other side's plus ``limit`` seconds (``extra``)."""

    other: str  # "markdown-exec" or "BASE"
    kind: str  # "ratio" or "extra"
    limit: float

    def text(self) -> str:
        """The target as written in the table."""
        return f"<= {self.limit} x {self.other}" if self.kind == "ratio" else f"<= {self.other} + {self.limit} s"


@dataclass(frozen=True)
class Measure:
    """A line of the table: the round figures (keys of ``Round.seconds``) of each side, and the
    targets."""

    label: str
    project: str
    mdexec: str | None
    base: str | None
    checks: tuple[Check, ...] = ()


def measures(examples: dict[str, int]) -> list[Measure]:
    """The table's lines, for the sizes measured (``examples``: examples by size label)."""
    rows = []
    for label, count in examples.items():
        warm = 1.2 if label == "1x" else 1.1
        rows += [
            Measure(f"cold, {label} ({count} examples)", f"{label} project cold", f"{label} markdown-exec build",
                    f"{label} BASE build", (Check("markdown-exec", "ratio", 1.0),)),
            Measure(f"warm, {label}", f"{label} project warm", f"{label} markdown-exec build", f"{label} BASE warm",
                    (Check("BASE", "ratio", warm),)),
            Measure(f"one example edited, rebuild, {label}", f"{label} project example edit",
                    f"{label} markdown-exec build", f"{label} BASE warm"),
            Measure(f"prose edited, rebuild, {label}", f"{label} project prose edit",
                    f"{label} markdown-exec build", f"{label} BASE warm"),
        ]
    rows += [
        Measure("one example edited under serve, write to reload", "serve project example",
                "serve markdown-exec example", "serve BASE example",
                (Check("markdown-exec", "ratio", 1.0), Check("BASE", "extra", 0.3))),
        Measure("prose edited under serve, write to reload", "serve project prose", None, "serve BASE prose",
                (Check("BASE", "ratio", 1.1),)),
    ]
    return rows


@dataclass
class Row:
    """A measure's medians over the rounds, each round's compared values, and its checks' results."""

    measure: Measure
    seconds: dict[str, float | None]  # side -> median seconds
    each: dict[str, list[float]]  # "project / markdown-exec", "project / BASE", "project - BASE" -> by round
    results: list[tuple[Check, float, bool]]

    def median(self, name: str) -> float | None:
        """The median over the rounds of a compared value, or None."""
        return statistics.median(self.each[name]) if self.each.get(name) else None


def evaluate(measure: Measure, rounds: list[Round]) -> Row | None:
    """A measure over the rounds that have its figures (None if no round has them)."""
    keys = {"project": measure.project, "markdown-exec": measure.mdexec, "BASE": measure.base}
    have = [r for r in rounds if measure.project in r.seconds]
    if not have:
        return None
    seconds = {side: statistics.median([r.seconds[key] for r in have]) if key else None for side, key in keys.items()}
    each = {}
    for other in ("markdown-exec", "BASE"):
        if keys[other]:
            each[f"project / {other}"] = [r.seconds[measure.project] / r.seconds[keys[other]] for r in have]
            each[f"project - {other}"] = [r.seconds[measure.project] - r.seconds[keys[other]] for r in have]
    results = []
    for check in measure.checks:
        value = statistics.median(each[f"project {'/' if check.kind == 'ratio' else '-'} {check.other}"])
        results.append((check, value, value <= check.limit))
    return Row(measure, seconds, each, results)


def cell(value: float | None, unit: str = "") -> str:
    """A table cell: a number with two decimals, or a dash."""
    return "-" if value is None else f"{value:.2f}{unit}"


def print_table(rows: list[Row]) -> None:
    """The table of medians, targets and PASS/MISS, then each round's compared values."""
    print("| measure | project | markdown-exec | BASE | project / markdown-exec | project / BASE | target | |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        sides = " | ".join(cell(row.seconds[side], " s") for side in ("project", "markdown-exec", "BASE"))
        ratios = " | ".join(cell(row.median(f"project / {other}")) for other in ("markdown-exec", "BASE"))
        targets = "; ".join(check.text() + (f" ({value:+.2f} s)" if check.kind == "extra" else "")
                            for check, value, _ in row.results) or "-"
        verdict = "; ".join("PASS" if passed else "MISS" for _, _, passed in row.results)
        print(f"| {row.measure.label} | {sides} | {ratios} | {targets} | {verdict} |")
    print("\neach round's values (project / other side; project - BASE in seconds where a target uses it):")
    for row in rows:
        extra = any(check.kind == "extra" for check in row.measure.checks)
        shown = [name for name in row.each if "/" in name or (extra and name == "project - BASE")]
        print(f"  {row.measure.label}: " + "; ".join(
            f"{name} " + ", ".join(f"{value:.2f}" for value in row.each[name]) for name in shown))


def print_memory(rounds: list[Round], labels: list[str]) -> None:
    """Peak resident set (MiB) of the cold builds, median over the rounds (largest process)."""
    parts = []
    for label in labels:
        for name in (f"{label} project cold", f"{label} markdown-exec build", f"{label} BASE build"):
            peaks = [r.peaks[name] for r in rounds if name in r.peaks]
            if peaks:
                parts.append(f"{name.replace(' build', '')} {statistics.median(peaks):.0f} MiB "
                             f"({', '.join(f'{p:.0f}' for p in peaks)})")
    print("peak memory (largest resident set of any process in the build's tree, ru_maxrss), median (rounds): "
          + "; ".join(parts))


def print_cpu(rounds: list[Round]) -> None:
    """Median CPU seconds of each kind of build (user + system, the whole tree): the work done,
    steadier than wall-clock seconds on a shared machine, though not what a target compares."""
    figures = ", ".join(f"{name} {statistics.median(r.cpu[name] for r in rounds):.2f}" for name in rounds[0].cpu)
    print(f"CPU seconds of the builds (user + system of the whole tree), median: {figures}")


def print_recording(rounds: list[Round]) -> None:
    """What recording a teaching figure added per example (``recording_cost``), median over the rounds."""
    costs = [r.recording for r in rounds if r.recording]
    if costs:
        median = statistics.median(c.ms_per_example for c in costs)
        print(f"recording a teaching figure: {median:.1f} ms per example that asks for one ({costs[0].examples} "
              f"examples; rounds {', '.join(f'{c.ms_per_example:.1f}' for c in costs)}); target <= 5 ms: "
              f"{'PASS' if median <= 5 else 'MISS'}")


def print_round(rnd: Round) -> None:
    """A round's seconds, as they come."""
    figures = ", ".join(f"{name} {seconds:.2f}" for name, seconds in rnd.seconds.items())
    notes = f" [{'; '.join(rnd.notes)}]" if rnd.notes else ""
    print(f"  round {rnd.number + 1} (s): {figures}; load average {os.getloadavg()[0]:.1f}{notes}", flush=True)


def machine() -> str:
    """The machine line: CPU, cores, Python, torch and the builders' versions."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(encoding="utf-8"), re.M)
        cpu = found[1] if found else cpu
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("torch", "mkdocs", "mkdocs-material"))
    return (f"machine: {cpu} ({platform.machine()}), {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{versions}, {MARKDOWN_EXEC[0]} {MARKDOWN_EXEC[1]}; load average {os.getloadavg()[0]:.1f}")


# ---------------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the median over them is reported)")
    parser.add_argument("--warm-groups", type=int, default=2,
                        help="groups of four warm builds (project BASE BASE project) per round and size")
    parser.add_argument("--serve-edits", type=int, default=2, help="edits of each kind per side under serve")
    parser.add_argument("--skip-scaling", action="store_true", help="leave out the 10x site")
    parser.add_argument("--skip-serve", action="store_true", help="leave out the timings under mkdocs serve")
    parser.add_argument("--skip-recording", action="store_true", help="leave out what recording a figure costs")
    parser.add_argument("--keep", action="store_true", help="keep the sites and the last logs (printed folder)")
    return parser.parse_args()


@contextmanager
def workspace(keep: bool) -> Iterator[Path]:
    """A temporary folder for the sites and their logs, removed at the end unless ``keep``."""
    temp = Path(tempfile.mkdtemp(prefix="docexec-bench-"))
    try:
        yield temp
    finally:
        if keep:
            print(f"sites and logs kept in {temp}")
        else:
            shutil.rmtree(temp, ignore_errors=True)


def prepare(temp: Path, scaling: bool) -> list[Sites]:
    """The 1x sites, and the 10x ones unless ``scaling`` is off."""
    python = markdown_exec_python()
    print(f"{MARKDOWN_EXEC[0]} {MARKDOWN_EXEC[1]}: {python} (side environment, sees the project's packages)")
    copy_site(temp / "site")
    sizes = [make_sites(temp / "site", "1x", python)]
    if scaling:
        print(f"making the {SCALE}x site (its DOT files with `docexec fix`: every example runs once)...", flush=True)
        scaled_copy(temp / "site", temp / "big", SCALE)
        sizes.append(make_sites(temp / "big", f"{SCALE}x", python))
    for sites in sizes:
        print(f"{sites.label}: {sites.examples} examples; edits go to {sites.example} and {sites.page}")
    return sizes


def main() -> None:
    """Run the rounds and print the table."""
    args = arguments()
    print(machine())
    rounds = []
    with workspace(args.keep) as temp:
        sizes = prepare(temp, not args.skip_scaling)
        for number in range(args.repeat):
            rnd = Round(number)
            torch_import(rnd)
            for sites in sizes:
                build_round(sites, rnd, args.warm_groups)
                if sites.label == "1x" and not args.skip_serve:
                    serve_round(sites, rnd, args.serve_edits)
                if sites.label == "1x" and not args.skip_recording:
                    rnd.recording = recording_cost(sites.project.folder, flip=rnd.flip)
            print_round(rnd)
            rounds.append(rnd)
    rows = [row for m in measures({s.label: s.examples for s in sizes}) if (row := evaluate(m, rounds))]
    print(f"\n{machine()}\nmedians over {len(rounds)} rounds; ratios are each round's, their median shown; "
          f"import torch {statistics.median(r.seconds['import torch'] for r in rounds):.2f} s")
    print_table(rows)
    print_memory(rounds, [s.label for s in sizes])
    print_cpu(rounds)
    print_recording(rounds)
    print("markdown-exec has no cache (each of its builds runs every example): its one build per round stands in "
          "every build row; BASE runs nothing: its warm builds stand in the edit rows.")


if __name__ == "__main__":
    main()
