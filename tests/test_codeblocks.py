"""Every Python block a reader can copy from a page (or README.md) runs on its own.

pytest-codeblocks runs each ```python block of the pages *as a reader sees them* (includes
expanded, outputs inserted). It skips, without a word, fences whose info string is not exactly
``python``, ``sh`` or ``bash``, and it really runs sh/bash blocks, so this module also fails on
any such fence in the pages or README.md.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from docexec.pages.expand import expand
from docexec.run.runner import Runner

from .conftest import ROOT, snippet_base_paths

pytestmark = pytest.mark.slow

PAGES = sorted((ROOT / "docs").rglob("*.md"))
FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*)$", re.M)


def fence_infos(text: str) -> list[str]:
    """Info strings of the opening fences in ``text`` (closing fences have none)."""
    infos, inside = [], None
    for match in FENCE.finditer(text):
        fence = match.group(1)
        if inside is None:
            inside = fence
            infos.append(match.group("info").strip())
        elif fence[0] == inside[0] and len(fence) >= len(inside) and not match.group("info").strip():
            inside = None
    return infos


def silently_skipped(text: str) -> list[str]:
    """Fences that look like Python but that pytest-codeblocks would not collect."""
    return [info for info in fence_infos(text)
            if re.match(r"(py|python|python3)\b", info) and info != "python"]


@pytest.fixture(scope="module")
def expanded(tmp_path_factory, warm_site) -> Path:
    folder = tmp_path_factory.mktemp("pages")
    runner = Runner(ROOT)
    runner.start()
    results = runner.wait()
    for page in PAGES:
        target = folder / page.relative_to(ROOT / "docs")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(expand(page, ROOT, snippet_base_paths(), results), encoding="utf-8")
    (folder / "README.md").write_text((ROOT / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def test_the_fence_scanner_sees_what_pytest_codeblocks_would_skip():
    text = '```python title="x"\nprint(1)\n```\n\n```py\nx\n```\n\n```python\nok\n```\n\n```text\n```\n'
    assert silently_skipped(text) == ['python title="x"', "py"]


@pytest.mark.parametrize("name", [p.relative_to(ROOT).as_posix() for p in PAGES] + ["README.md"])
def test_no_python_block_is_skipped_silently(expanded, name):
    path = expanded / (name.removeprefix("docs/"))
    assert silently_skipped(path.read_text(encoding="utf-8")) == []


def test_readme_runs_no_shell_blocks():
    infos = fence_infos((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not [i for i in infos if i in ("sh", "bash")], "use ```console for commands in README.md"


def test_every_python_block_runs_on_its_own(expanded):
    """pytest-codeblocks runs a file's blocks one after the other in one process (``exec``), so one
    block's process-wide state (a warning PyTorch gives once per process, a global default) would
    reach the next; each page gets a process of its own, as a reader's notebook or script would."""
    from concurrent.futures import ThreadPoolExecutor

    files = sorted(expanded.rglob("*.md"))
    blocks = {f: fence_infos(f.read_text(encoding="utf-8")).count("python") for f in files}
    assert sum(blocks.values()) >= 8

    def run(path: Path) -> tuple[Path, subprocess.CompletedProcess]:
        return path, subprocess.run(
            [sys.executable, "-m", "pytest", "--codeblocks", "-q", "-p", "no:cacheprovider", "--rootdir",
             str(expanded), "-o", "addopts=", "-o", "pythonpath=", str(path)],
            capture_output=True, text=True, cwd=expanded)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for path, proc in pool.map(run, [f for f in files if blocks[f]]):
            summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
            assert proc.returncode == 0, f"{path.name}: " + proc.stdout[-3000:] + proc.stderr[-2000:]
            assert f"{blocks[path]} passed" in summary, f"{path.name}: {summary}"
