"""The sites ``make bench`` compares (tools/bench.py): timed whole builds, the project's copy, its
BASE and markdown-exec twins, markdown-exec's side environment, and the edits timed on them."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

import yaml
from mkdocs.utils.yaml import get_yaml_loader

ROOT = Path(__file__).resolve().parent.parent
SITE_PARTS = ["docs", "snippets", "diagrams", "hooks", "includes", "docexec", "mkdocs.yml"]
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH="0")
MARKDOWN_EXEC = ("markdown-exec", "1.12.6")
SIDE_ENV = ROOT / ".cache" / "bench" / "markdown-exec"
EXEC_OPTIONS = 'exec="on" source="above" result="text"'


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


def run(command: list[str], cwd: Path, log: Path, one_core: bool = False) -> Run:
    """Run ``command`` in ``cwd`` (output to ``log``) and time it; exit with its log's end if it fails.
    With ``one_core``, the command and everything it starts may use the first CPU only, as under
    ``taskset -c 0`` (``os.sched_setaffinity`` before it starts, inherited by its children).

    The process is waited for with ``os.wait4``: its usage covers the process and every descendant
    it waited for; ``ru_maxrss`` is the largest resident set among them (KiB on Linux, bytes on
    macOS), as ``/usr/bin/time -v`` reports it.
    """
    with open(log, "w", encoding="utf-8") as out:
        started = time.perf_counter()
        pin = (lambda: os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})) if one_core else None
        proc = subprocess.Popen(command, cwd=cwd, env=ENV, stdout=out, stderr=subprocess.STDOUT, preexec_fn=pin)
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

    def build(self, one_core: bool = False) -> Run:
        """A whole `mkdocs build` of the site into ``out/`` (on the first CPU only: ``one_core``)."""
        command = [self.python, "-m", "mkdocs", "build", "--site-dir", str(self.folder / "out")]
        return run(command + (["--strict"] if self.strict else []), self.folder, self.folder.parent / "build.log",
                   one_core)

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
        chapters = sorted(set(re.findall(r'--8<-- "([\w-]+)/', text)))
        copies = []
        for copy in range(1, factor):
            body = qualified_quotes(text, chapters, site, f"-{copy}")
            for chapter in chapters:
                shutil.copytree(site / "snippets" / chapter, target / "snippets" / f"{chapter}-{copy}",
                                dirs_exist_ok=True)
                body = body.replace(f'--8<-- "{chapter}/', f'--8<-- "{chapter}-{copy}/')
            copies.append(re.sub(r"^# (.+)$", rf"## \1 (copy {copy})", body, count=1, flags=re.M))
        text = qualified_quotes(text, chapters, site, "")
        page.write_text("\n\n".join([text.rstrip("\n")] + copies) + "\n", encoding="utf-8")
    fix = subprocess.run([sys.executable, "-m", "docexec", "fix"], cwd=target, env=ENV, capture_output=True, text=True)
    if fix.returncode != 0:
        raise SystemExit(f"docexec fix failed in the {factor}x site {target}:\n{(fix.stdout + fix.stderr)[-3000:]}")
    return len(list((target / "snippets").rglob("*.py")))


_QUOTED = re.compile(r"\{\{(\s*)(?:([\w-]+)/)?([\w.-]+?)(\s*):")


def qualified_quotes(text: str, chapters: list[str], site: Path, suffix: str) -> str:
    """``text`` with each value its prose quotes from a run (``{{ example: expression }}``) naming
    its example with its chapter folder plus ``suffix`` (a copy's folder): on a page holding
    several copies of one example, the bare name would name them all."""
    def qualify(match: re.Match) -> str:
        space, chapter, name, after = match.groups()
        chapter = chapter or next((c for c in chapters if (site / "snippets" / c / f"{name}.py").is_file()), None)
        return match.group(0) if chapter is None else f"{{{{{space}{chapter}{suffix}/{name}{after}:"

    return _QUOTED.sub(qualify, text)


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
