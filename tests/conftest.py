"""Shared helpers: the repository root and throwaway repositories holding given snippets."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The PyTorch the course pins (requirements.txt), so that no test names it: `make upgrade` moves it.
PIN = re.search(r"^torch==(\S+)$", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M).group(1)


def write_snippets(root: Path, files: dict[str, str]) -> list[str]:
    """Write ``{relative path: source}`` under ``root`` (sources are dedented); return the paths."""
    for rel, source in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip("\n"), encoding="utf-8")
    return list(files)


def _config() -> dict:
    """mkdocs.yml (its ``!ENV`` tags read as nothing)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=Loader)


def snippet_base_paths() -> list[str]:
    """The folders pages include files from (``pymdownx.snippets``' ``base_path`` in mkdocs.yml)."""
    from docexec.source.config import include_paths

    return include_paths(ROOT)


def markdown_extensions(skip: tuple[str, ...] = ()) -> tuple[list[str], dict[str, dict]]:
    """The Markdown extensions of mkdocs.yml but those in ``skip``: their names, and their options."""
    names, configs = [], {}
    for entry in _config()["markdown_extensions"]:
        name, options = next(iter(entry.items())) if isinstance(entry, dict) else (entry, None)
        if name not in skip:
            names.append(name)
            if options:
                configs[name] = options
    return names, configs


#: The caches a copy of the site carries (``site_copy``): all of the build's. Each entry is keyed on
#: everything it was made from, so a copy converts, runs and draws again only what a test changed;
#: a test whose point is a cold build copies the files alone (``copy_site_files``).
CARRIED_CACHES = ("runs", "svg", "pages", "notebooks", "notebook-html", "installation")
#: The caches only a site build writes (tests that run examples fill the run cache too): when none
#: is there as the session's first build starts, that build is cold in every stage it has.
BUILD_CACHES = ("svg", "pages", "notebooks", "notebook-html")


@pytest.fixture(scope="session")
def warm_site(tmp_path_factory) -> Path:
    """The site as ``make build`` writes it, built once per test session, and the repository's
    caches filled by that build. Test processes (pytest-xdist's workers, which share the parent of
    their temporary folders) take turns under a lock on a file in ``.cache/``: the first builds the
    site, the next find it built."""
    base = tmp_path_factory.getbasetemp()
    out = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "warm-site"
    lock = ROOT / ".cache" / "tests.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if not (out / "index.html").is_file():
            cold = not any((ROOT / ".cache/docexec" / name).exists() for name in BUILD_CACHES)
            proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                                  cwd=ROOT, capture_output=True, text=True,
                                  env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
            assert proc.returncode == 0, proc.stderr[-4000:]
            build_log(out).write_text(proc.stderr, encoding="utf-8")
            if cold:
                cold_marker(out).touch()
    return out


def build_log(site: Path) -> Path:
    """Where ``warm_site`` keeps what its build logged."""
    return site.with_name(site.name + ".log")


def cold_marker(site: Path) -> Path:
    """A file next to ``warm_site``'s site when its build found none of ``BUILD_CACHES`` (a fresh
    clone); with its log saying that every example ran, it was cold in every stage."""
    return site.with_name(site.name + ".cold")


def copy_caches(target: Path, names: tuple[str, ...] = CARRIED_CACHES) -> None:
    """Copy the repository's caches ``names`` (under ``.cache/docexec/``) into ``target``."""
    for name in names:
        if (ROOT / ".cache/docexec" / name).is_dir():
            shutil.copytree(ROOT / ".cache/docexec" / name, target / ".cache/docexec" / name)


def copy_site_files(target: Path) -> Path:
    """Everything a site build reads (config, pages, snippets, hooks, diagrams, docexec) in ``target``."""
    shutil.copy2(ROOT / "mkdocs.yml", target / "mkdocs.yml")
    for name in ("docs", "snippets", "hooks", "diagrams", "docexec", "includes"):
        if (ROOT / name).exists():
            shutil.copytree(ROOT / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.fixture
def site_copy(tmp_path: Path, warm_site: Path) -> Path:
    """A copy of everything a site build reads, in a temp folder, with the repository's caches
    (``CARRIED_CACHES``): only what a test changes runs, converts or draws again."""
    copy_site_files(tmp_path)
    copy_caches(tmp_path)
    return tmp_path


class SharedWorker:
    """The worker that ``run_all`` hands from runner to runner within one test process: each test's
    run then costs forks, not another import of torch (about 3 s). ``mkdocs serve`` keeps its worker
    between builds the same way. A test that needs a worker nothing ran in before (what a fresh
    worker imports, warns or holds) makes its own ``Runner`` or calls ``run_all(fresh=True)``."""

    def __init__(self):
        self.worker = None
        self.environment: dict[str, str] = {}  # what the worker was started with

    def take(self):
        """The shared worker, or None (the runner starts one): also when the environment changed
        since it started (a test's monkeypatch.setenv), which it would not see."""
        if self.worker is not None and environment() != self.environment:
            self.stop()
        worker, self.worker = self.worker, None
        return worker

    def give(self, worker) -> None:
        """Keep ``worker`` (the runner's ``hand_over``; started, or taken, in this environment)."""
        self.stop()
        self.worker, self.environment = worker, environment()

    def stop(self) -> None:
        from docexec.run.execute import stop_worker

        if self.worker is not None and self.worker.poll() is None:
            stop_worker(self.worker, grace=0)
        self.worker = None


def environment() -> dict[str, str]:
    """The test process's environment as a worker started now would see it, but for the variable
    pytest sets to the name of the test running (``PYTEST_CURRENT_TEST``), different in every test
    and every phase of one: comparing it would start a new worker for every test."""
    return {name: value for name, value in os.environ.items() if name != "PYTEST_CURRENT_TEST"}


SHARED = SharedWorker()


@pytest.fixture(scope="session", autouse=True)
def _stop_the_shared_worker():
    yield
    SHARED.stop()


def run_all(root: Path, folder: str = "snippets", paths: list[str] | None = None, fresh: bool = False,
            **options):
    """Run ``paths`` (default: every snippet under ``folder``) with a new ``Runner`` and return the
    complete ``Results``. The runner uses the test process's shared worker (``SHARED``) unless
    ``fresh`` or another interpreter is asked for, and gives it back after the run."""
    from docexec.run.runner import Runner

    if fresh or options.get("python") is not None:
        runner = Runner(root, folder, **options)
        try:
            runner.start(paths)
            return runner.wait()
        finally:
            runner.close()
    with shared_runner(root, folder, **options) as runner:
        runner.start(paths)
        return runner.wait()


@contextlib.contextmanager
def shared_runner(root: Path, folder: str = "snippets", **options):
    """A ``Runner`` on the test process's shared worker (``SHARED``; it starts one if there is
    none), which takes the worker back when the block ends: for a test whose point is not what a
    fresh worker does (that test makes its own ``Runner``)."""
    from docexec.run.runner import Runner

    runner = Runner(root, folder, worker=SHARED.take(), **options)
    try:
        yield runner
    finally:
        SHARED.give(runner.hand_over())
        runner.close()
