"""The upgrade drill: `make drift` and `make upgrade` against a stand-in for another PyTorch.

The stand-in is cheap to make: a venv without packages of its own that sees the project's
(a ``.pth`` file) and whose ``sitecustomize`` changes torch once it is imported
(``tests/fixtures/drift_standin/sitecustomize.py``): version 2.99.0, ``exp`` recorded as a
``PowBackward2`` Node, ``detach`` warning, ``cos`` raising. The examples are a small repository
of four; its pin is the project's own, read from requirements.txt.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import markdown
import pytest

from docexec.graphs import figures
from docexec.tasks import upgrade
from docexec.versions import drift, sideenv

from .conftest import PIN, ROOT, run_all, write_snippets

pytestmark = pytest.mark.slow

OTHER = "2.99.0"  # what the stand-in calls itself
SNIPPETS = {
    "snippets/ch/node_name.py": """
        import torch

        x = torch.tensor(1.0, requires_grad=True)
        y = x.exp()
        print(y.grad_fn.name())  # ExpBackward0
        """,
    "snippets/ch/warns.py": """
        import torch

        x = torch.ones(2, requires_grad=True)
        # --8<-- [start:cut]
        y = x.detach()
        print(y.requires_grad)  # False
        # --8<-- [end:cut]
        """,
    "snippets/ch/fails.py": """
        import torch

        print(torch.zeros(1).cos().item())  # 1.0
        """,
    "snippets/ch/same.py": """
        print(1 + 1)  # 2
        """,
}
PAGES = {
    "docs/index.md": f"""
        # Home

        This course runs PyTorch {PIN}.
        """,
    "docs/chapter.md": """
        # One chapter

        ```python
        --8<-- "ch/node_name.py"
        ```

        !!! note "Inside an admonition"

            ```python
            --8<-- "ch/warns.py:cut"
            ```

        ```python
        --8<-- "ch/fails.py"
        ```

        ```python
        --8<-- "ch/same.py"
        ```
        """,
    "mkdocs.yml": """
        site_name: Drift fixture
        strict: true
        validation:
          anchors: warn
        markdown_extensions:
          - admonition
          - pymdownx.highlight
          - pymdownx.superfences
          - pymdownx.snippets:
              base_path: [snippets]
              check_paths: true
              dedent_subsections: true
          - docexec.host.markdown_ext:
              base_path: snippets
        plugins:
          - search
        not_in_nav: |
          /notebooks/
        hooks:
          - hooks/mkdocs_adapter.py
        nav:
          - Home: index.md
          - One chapter: chapter.md
        """,
    "requirements.txt": f"""
        torch=={PIN}
        numpy
        """,
    ".github/workflows/site.yml": f"""
        jobs:
          build:
            steps:
              - run: pip install torch=={PIN}
        """,
    "README.md": f"""
        The examples run on PyTorch {PIN}, CPU build.
        Timed on PyTorch {PIN}. <!-- pin: keep -->
        """,
}


def environment(root: Path) -> dict[str, str]:
    return dict(os.environ, NO_MKDOCS_2_WARNING="1", NO_COLOR="1", PYTHONPATH=str(root))


def docexec(root: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "docexec", *args, "--root", str(root)], cwd=root,
                          env=env or environment(root), capture_output=True, text=True, timeout=600)


def mkdocs_build(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", "site"], cwd=root,
                          env=environment(root), capture_output=True, text=True, timeout=600)


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".cache" not in p.parts and "site" not in p.parts and "__pycache__" not in p.parts}


def copy_repo(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("site", "__pycache__"))
    return target


@pytest.fixture(scope="module")
def standin(tmp_path_factory) -> str:
    """The stand-in's interpreter: a venv that sees the project's packages, with the stand-in sitecustomize."""
    folder = tmp_path_factory.mktemp("standin") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "project.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    shutil.copy2(ROOT / "tests/fixtures/drift_standin/sitecustomize.py", site / "sitecustomize.py")
    return str(python)


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """The small repository, its DOT files committed as `make fix` would, its run cache warm."""
    root = tmp_path_factory.mktemp("course")
    write_snippets(root, {**SNIPPETS, **PAGES})
    shutil.copytree(ROOT / "hooks", root / "hooks", ignore=shutil.ignore_patterns("__pycache__"))
    results = run_all(root)
    figures.sync(root, results.graphs(), set(results.runs))
    assert not run_all(root).problems()
    return root


@pytest.fixture(scope="module")
def recorded(repo, standin, tmp_path_factory):
    """``make drift`` against the stand-in: its run, and the repository files before it."""
    before = files_of(repo)
    proc = docexec(repo, "drift", "--python", standin)
    return proc, before


def test_report_lines_summary_and_only_the_record_written(repo, recorded):
    proc, before = recorded
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert f"snippets/ch/node_name.py:5: {PIN} printed 'ExpBackward0', {OTHER} prints 'PowBackward2'" in lines
    assert f"snippets/ch/warns.py:5: newly warns on {OTHER}: FutureWarning: detach() will copy its data in a later " \
           "release" in lines
    assert f"snippets/ch/fails.py:3: fails on {OTHER}: raised RuntimeError: Tensor.cos was removed" in lines
    figure = lines.index(f"diagrams/ch/node_name.dot: the graph of snippets/ch/node_name.py differs on {OTHER}:")
    diff = [line for line in lines[figure + 1:] if line.startswith("    ")]
    assert any(line.startswith("    -") and "ExpBackward0" in line for line in diff)
    assert any(line.startswith("    +") and "PowBackward2" in line for line in diff)
    assert not any("same.py" in line for line in lines)
    assert lines[-1].startswith(
        f"docexec drift: PyTorch {PIN} -> {OTHER}: 3 of 4 examples differ: 1 claim(s) would change, 1 new warning(s), "
        "0 warning(s) gone, 1 figure(s) would change, 1 example(s) would fail, 0 value(s) quoted in prose would "
        "change; written to drift.json")
    after = files_of(repo)
    assert set(after) - set(before) == {"drift.json"}
    assert {path for path in before if before[path] != after[path]} == set()
    record = drift.loads((repo / "drift.json").read_text(encoding="utf-8"))
    assert (record.torch, record.baseline, record.examples_run) == (OTHER, PIN, 4)


def test_a_second_run_without_record_writes_nothing(repo, recorded, standin, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    (copy / "drift.json").unlink()
    proc = docexec(copy, "drift", "--python", standin, "--no-record")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].endswith("the record was not written (RECORD=0)")
    assert not (copy / "drift.json").exists()


def test_the_page_lists_each_change_and_one_folded_note_links_to_each_output(repo, recorded, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    proc = mkdocs_build(copy)
    assert proc.returncode == 0, proc.stderr[-3000:]
    page = (copy / "site/what-changes/index.html").read_text(encoding="utf-8")
    assert f"What changes in PyTorch {OTHER}</h1>" in page
    assert 'href="../chapter/#drift-ch-node-name-py"' in page
    assert 'href="../chapter/#drift-ch-warns-py-cut"' in page and 'href="../chapter/#drift-ch-fails-py"' in page
    assert "same.py" not in page
    assert "Tensor.cos was removed" in page and "detach() will copy its data" in page
    chapter = (copy / "site/chapter/index.html").read_text(encoding="utf-8")
    notes = re.findall(r'<details class="info docexec-drift"[^>]*>(.*?)</details>', chapter, re.S)
    assert len(notes) == 1, "one version note per page"
    note = notes[0]
    assert f"<summary>On PyTorch {OTHER}, 3 outputs on this page differ</summary>" in note
    assert chapter.index(note) < chapter.index('<span class="filename">Output</span>'), "under the title"
    at = re.findall(r'<span class="docexec-drift-at" id="([^"]+)"></span>', chapter)
    assert at == ["drift-ch-node-name-py", "drift-ch-warns-py-cut", "drift-ch-fails-py"]
    for anchor in at:  # each marks the output it speaks of, and the note links to it
        assert chapter.index(f'id="{anchor}"') < chapter.index('<span class="filename">Output</span>',
                                                                chapter.index(f'id="{anchor}"'))
        assert f'href="#{anchor}"' in note
    assert "PowBackward2" in note and "draws a different graph" in note
    assert "FutureWarning: detach() will copy its data in a later release" in note
    assert "fails: <code>raised RuntimeError: Tensor.cos was removed</code>" in note
    assert f"What changes in PyTorch {OTHER}" in (copy / "site/index.html").read_text(encoding="utf-8")  # the nav


def test_no_record_no_page_and_no_notes(repo, recorded, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    (copy / "drift.json").unlink()
    proc = mkdocs_build(copy)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert not (copy / "site/what-changes").exists()
    assert "docexec-drift" not in (copy / "site/chapter/index.html").read_text(encoding="utf-8")
    assert "What changes" not in (copy / "site/index.html").read_text(encoding="utf-8")


def test_a_stale_record_is_reported_and_not_shown(repo, recorded, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    with open(copy / "snippets/ch/same.py", "a", encoding="utf-8") as handle:
        handle.write("# edited after the record was made\n")
    proc = mkdocs_build(copy)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (f"docexec: drift.json: not shown: snippets/ch/same.py changed since it was recorded; run `make drift "
            f"TORCH={OTHER}` to refresh it, or delete it") in proc.stderr
    assert not (copy / "site/what-changes").exists()
    assert "docexec-drift" not in (copy / "site/chapter/index.html").read_text(encoding="utf-8")
    check = docexec(copy, "check")
    assert check.returncode == 0 and "drift.json: not shown: snippets/ch/same.py changed" in check.stdout


def test_the_extension_alone_reports_a_stale_record_too(repo, recorded, tmp_path, capfd):
    """Hosts that run no hook (Zensical) get the same line from the Markdown extension."""
    copy = copy_repo(repo, tmp_path / "copy")
    (copy / "snippets/ch/new.py").write_text("print(3)  # 3\n", encoding="utf-8")
    md = markdown.Markdown(extensions=["pymdownx.superfences", "pymdownx.snippets", "docexec.host.markdown_ext"],
                           extension_configs={"pymdownx.snippets": {"base_path": [str(copy / "snippets")]},
                                              "docexec.host.markdown_ext": {"root": str(copy), "on_problems": "raise"}})
    html = md.convert('# T\n\n```python\n--8<-- "ch/node_name.py"\n```\n')
    assert "ExpBackward0" in html and "docexec-drift" not in html
    assert "docexec: drift.json: not shown: snippets/ch/new.py changed since it was recorded" in capfd.readouterr().err


def test_a_record_of_another_baseline_is_not_shown(repo, recorded, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    record = drift.loads((copy / "drift.json").read_text(encoding="utf-8"))
    record.baseline = "1.0.0"
    drift.write(copy, record)
    with pytest.raises(drift.RecordNotShownError) as refused:
        drift.current(copy, "snippets")
    assert str(refused.value) == (f"drift.json: not shown: it compares PyTorch 1.0.0 with {OTHER}, and this build "
                                  f"runs {PIN}; run `make drift TORCH={OTHER}` to refresh it, or delete it")


def test_an_environment_that_cannot_be_made_is_one_line_and_exit_2(tmp_path):
    write_snippets(tmp_path, {"snippets/ch/same.py": SNIPPETS["snippets/ch/same.py"],
                              "requirements.txt": f"torch=={PIN}\nnumpy\n"})
    empty = tmp_path / "no-wheels"
    empty.mkdir()
    env = dict(environment(tmp_path), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(empty))
    proc = docexec(tmp_path, "drift", "--torch", "0.0.1", env=env)
    assert proc.returncode == 2
    assert proc.stderr.startswith("docexec drift: cannot make the PyTorch 0.0.1 environment: pip install "
                                  "torch==0.0.1 numpy failed: ERROR: ")
    assert "Traceback" not in proc.stderr + proc.stdout
    assert not (tmp_path / ".cache/drift/torch-0.0.1").exists()  # a half-made environment is not left
    assert not (tmp_path / "drift.json").exists()
    bad = docexec(tmp_path, "drift", "--torch", "latest", env=env)
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("docexec drift: cannot make the PyTorch latest environment: 'latest' is not a "
                                  "PyTorch version (such as 2.14.1)")


def test_an_interpreter_without_torch_is_one_line_and_exit_2(repo, recorded, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    before = files_of(copy)
    proc = docexec(copy, "drift", "--python", str(tmp_path / "bare/bin/python"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"docexec drift: the examples could not be run by {tmp_path}/bare/bin/python: ")
    assert "No module named 'torch'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert files_of(copy) == before


def test_a_made_environment_is_reused_without_running_anything(tmp_path, monkeypatch):
    (tmp_path / "requirements.txt").write_text(f"torch=={PIN}\nnumpy==1.0\n", encoding="utf-8")
    folder = tmp_path / sideenv.DRIFT_DIR / f"torch-{OTHER}"
    (folder / "bin").mkdir(parents=True)
    (folder / "bin/python").symlink_to(sys.executable)
    (folder / sideenv.STAMP).write_text(f"torch=={OTHER} numpy==1.0\n", encoding="utf-8")
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("nothing is run for an environment made before"))
    assert sideenv.ensure(tmp_path, OTHER) == str(folder / "bin/python")
    (tmp_path / "requirements.txt").write_text(f"torch=={PIN}\nnumpy==2.0\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception):  # another numpy pin: installed again
        sideenv.ensure(tmp_path, OTHER)


def test_upgrade_moves_the_pin_fixes_the_claims_and_drops_the_record(repo, recorded, standin, tmp_path):
    copy = copy_repo(repo, tmp_path / "copy")
    proc = docexec(copy, "upgrade", "--torch", OTHER, "--python", standin)
    assert proc.returncode == 1, proc.stderr  # fails.py still fails on the stand-in: left for the author
    lines = proc.stdout.splitlines()
    assert f"requirements.txt:1: torch=={PIN}  =>  torch=={OTHER}" in lines
    assert f".github/workflows/site.yml:4: - run: pip install torch=={PIN}  =>  - run: pip install torch=={OTHER}" \
        in lines
    assert "snippets/ch/node_name.py:5: ExpBackward0  =>  PowBackward2" in lines
    assert (copy / "requirements.txt").read_text(encoding="utf-8") == f"torch=={OTHER}\nnumpy\n"
    assert (copy / "README.md").read_text(encoding="utf-8") == (
        f"The examples run on PyTorch {OTHER}, CPU build.\nTimed on PyTorch {PIN}. <!-- pin: keep -->\n")
    assert f"This course runs PyTorch {OTHER}." in (copy / "docs/index.md").read_text(encoding="utf-8")
    assert "print(y.grad_fn.name())  # PowBackward2" in (copy / "snippets/ch/node_name.py").read_text(encoding="utf-8")
    assert "PowBackward2" in (copy / "diagrams/ch/node_name.dot").read_text(encoding="utf-8")
    assert not (copy / "drift.json").exists()
    assert lines[-1].startswith(f"docexec upgrade: PyTorch {PIN} -> {OTHER}: the pin changed on 4 line(s) of 4 "
                                "file(s); 4 snippet(s) checked, 1 still with problems.")
    assert (ROOT / "requirements.txt").read_text(encoding="utf-8").count(f"torch=={PIN}") == 1  # the real pin stays


def test_pin_changes_whole_and_minor_versions_and_keeps_marked_lines(tmp_path):
    write_snippets(tmp_path, {"docs/a.md": """
        PyTorch 2.13 warns here; PyTorch 2.13.0 prints; 2.13.05 and 12.13.0 are other numbers.
        In this build (2.13.0) it does.
        Measured on 2.13.0. <!-- pin: keep -->
        """, "docs/sub/b.md": "torch==2.13.0+cpu\n", "notes.md": "2.13.0\n"})
    changes = upgrade.pin_changes(tmp_path, "2.13.0", "2.14.1")
    assert [(c.path, c.line, c.after) for c in changes] == [
        ("docs/a.md", 1, "PyTorch 2.14 warns here; PyTorch 2.14.1 prints; 2.13.05 and 12.13.0 are other numbers."),
        ("docs/a.md", 2, "In this build (2.14.1) it does."),
        ("docs/sub/b.md", 1, "torch==2.14.1+cpu"),
    ]


def test_a_change_of_a_source_line_alone_is_told_as_that_line():
    """An output whose only change is the line of a C++ file its warning names is shown as that one
    change; a second difference, or two lines that move, are not."""
    from docexec.pages.drift_page import SourceLineMove, source_line_move

    before = "UserWarning: x is deprecated (Triggered internally at /src/aten/TensorBody.h:493.)\ny\n"
    assert source_line_move(before, before.replace(":493", ":488")) == SourceLineMove("TensorBody.h", "493", "488")
    assert source_line_move(before, before.replace(":493", ":488").replace("y", "z")) is None
    twice = before + "again at /src/engine.cpp:10\n"
    assert source_line_move(twice, twice.replace(":493", ":488").replace(":10", ":11")) is None
    assert source_line_move(before, before) is None
