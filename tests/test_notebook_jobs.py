"""A build's notebooks, made in the background once their chapters' snippets are in, and converted
by a process of their own; a notebook made from the same inputs is not made or converted again."""

from __future__ import annotations

import pytest

from docexec.host.build import Build
from docexec.notebooks.notebook_html import Converter, NotebookError, NotebookPages
from docexec.notebooks.notebook_jobs import NotebookJobs
from docexec.run.execute import ExecutionError
from docexec.run.runner import Runner

from .conftest import write_snippets

pytestmark = pytest.mark.slow

PAGE = '# A chapter\n\nSome prose.\n\n```python\n--8<-- "c/a.py"\n```\n'


def jobs_of(root, converter: Converter) -> tuple[NotebookJobs, Build]:
    """A build of ``PAGE`` whose run and notebook are begun."""
    build = Build(Runner(root))
    page = build.page(PAGE, "docs/a.md")
    build.runner.start()
    jobs = NotebookJobs(build.runner, build.drawings, NotebookPages(root / "cache", converter))
    jobs.start({"notebooks/a.ipynb": (page, root / "out/notebooks/a.ipynb")})
    return jobs, build


def gated_snippet(root, path: str = "snippets/c/a.py"):
    """Write ``path``, which prints once the file it waits for exists; returns that file."""
    gate = root / "gate"
    write_snippets(root, {path: (
        f"import os, time\nwhile not os.path.exists({str(gate)!r}):\n    time.sleep(0.05)\nprint(1)  # 1\n")})
    return gate


def test_a_notebook_is_written_converted_and_then_reused_as_it_is(tmp_path):
    write_snippets(tmp_path, {"snippets/c/a.py": 'print("hello")  # hello\n'})
    converter = Converter(tmp_path)
    try:
        jobs, build = jobs_of(tmp_path, converter)
        html = jobs.html("notebooks/a.ipynb")
        assert "Some prose." in html.content and "hello" in html.content and html.title == "A chapter (notebook)"
        target = tmp_path / "out/notebooks/a.ipynb"
        made = target.stat().st_mtime_ns
        assert jobs.pages.converted == 1
        build.runner.close()
        again, build = jobs_of(tmp_path, converter)  # the next build: nothing changed
        assert again.html("notebooks/a.ipynb") == html and again.pages.converted == 0
        assert target.stat().st_mtime_ns == made  # not written again (its inputs' key is the same)
        build.runner.close()
    finally:
        converter.close()


def test_a_notebook_changed_by_hand_is_made_again(tmp_path):
    """The stamp beside a notebook seals its inputs' key with the notebook's bytes: a notebook
    edited since (a forged output) is written again from the run, not served."""
    write_snippets(tmp_path, {"snippets/c/a.py": 'print("hello")  # hello\n'})
    converter = Converter(tmp_path)
    try:
        jobs, build = jobs_of(tmp_path, converter)
        jobs.html("notebooks/a.ipynb")
        build.runner.close()
        target = tmp_path / "out/notebooks/a.ipynb"
        made = target.read_text(encoding="utf-8")
        target.write_text(made.replace("hello", "forged"), encoding="utf-8")
        again, build = jobs_of(tmp_path, converter)
        assert "forged" not in again.html("notebooks/a.ipynb").content
        assert target.read_text(encoding="utf-8") == made
        build.runner.close()
    finally:
        converter.close()


def test_a_run_that_fails_fails_its_notebook_for_whoever_waits(tmp_path):
    gated_snippet(tmp_path)  # never opened: the run is cancelled
    converter = Converter(tmp_path)
    jobs, build = jobs_of(tmp_path, converter)
    try:
        build.runner.cancel()  # as a build that stops early does
        with pytest.raises(ExecutionError, match="stopped"):
            jobs.written("notebooks/a.ipynb")
        with pytest.raises(ExecutionError, match="stopped"):
            jobs.html("notebooks/a.ipynb")
        jobs.join()
        assert converter._proc is None  # nothing was converted
    finally:
        build.runner.close()
        converter.close()


def test_a_chapter_whose_snippets_are_in_is_made_before_an_earlier_chapter_still_running(tmp_path):
    gate = tmp_path / "gate"
    write_snippets(tmp_path, {
        "snippets/c/slow.py": f"import os, time\nwhile not os.path.exists({str(gate)!r}):\n    time.sleep(0.05)\n"
                              "print('slow')  # slow\n",
        "snippets/d/quick.py": "print('quick')  # quick\n"})
    converter = Converter(tmp_path)
    build = Build(Runner(tmp_path))
    try:
        slow = build.page('# Slow\n\n```python\n--8<-- "c/slow.py"\n```\n', "docs/slow.md")
        quick = build.page('# Quick\n\n```python\n--8<-- "d/quick.py"\n```\n', "docs/quick.md")
        build.runner.start()
        jobs = NotebookJobs(build.runner, build.drawings, NotebookPages(tmp_path / "cache", converter))
        jobs.start({"notebooks/slow.ipynb": (slow, tmp_path / "out/slow.ipynb"),
                    "notebooks/quick.ipynb": (quick, tmp_path / "out/quick.ipynb")})
        assert "quick" in jobs.html("notebooks/quick.ipynb").content  # while slow.py still waits
        assert not jobs.jobs["notebooks/slow.ipynb"].written.done()
        gate.write_text("open")
        assert "slow" in jobs.html("notebooks/slow.ipynb").content
    finally:
        gate.write_text("open")
        build.runner.close()
        converter.close()


def test_a_cancelled_build_writes_no_more_notebooks(tmp_path):
    """A build that failed under ``mkdocs serve`` must not write a notebook while the next build
    writes the same one."""
    gate = gated_snippet(tmp_path)
    converter = Converter(tmp_path)
    jobs, build = jobs_of(tmp_path, converter)
    try:
        jobs.cancel()  # the build failed while its snippet still ran
        gate.write_text("open")  # its result comes in after all
        with pytest.raises(NotebookError, match="stopped before this notebook was written"):
            jobs.written("notebooks/a.ipynb")
        jobs.join()
        assert not (tmp_path / "out/notebooks/a.ipynb").exists() and converter._proc is None
    finally:
        gate.write_text("open")
        build.runner.close()
        converter.close()


def test_a_chapter_whose_snippets_ran_is_made_before_chapters_whose_results_were_cached(tmp_path, monkeypatch):
    """Under ``mkdocs serve`` the notebook of the chapter an edit changed waits for no other: the
    chapters whose results all came from the run cache (ready at the start) are made after it."""
    write_snippets(tmp_path, {f"snippets/{name}/a.py": f"print('{name}')  # {name}\n" for name in "cde"})
    first = Runner(tmp_path)
    first.start()
    first.wait()  # c, d and e are in the run cache now
    first.close()
    gate = gated_snippet(tmp_path, "snippets/g/a.py")
    made, build = [], Build(Runner(tmp_path))
    pages = {name: build.page(f'# {name}\n\n```python\n--8<-- "{name}/a.py"\n```\n', f"docs/{name}.md")
             for name in "cdeg"}
    write = NotebookJobs._write

    def recorded_write(self, job, results):
        made.append(job.target.stem)
        if len(made) == 1:  # the first chapter from the cache: g's run comes in meanwhile
            gate.write_text("open")
            build.runner.wait(pages["g"].snippets)
        write(self, job, results)

    monkeypatch.setattr(NotebookJobs, "_write", recorded_write)
    converter = Converter(tmp_path)
    try:
        build.runner.start()
        jobs = NotebookJobs(build.runner, build.drawings, NotebookPages(tmp_path / "cache", converter))
        jobs.start({f"notebooks/{name}.ipynb": (page, tmp_path / f"out/{name}.ipynb") for name, page in pages.items()})
        jobs.join()
        assert made == ["c", "g", "d", "e"]
    finally:
        gate.write_text("open")
        build.runner.close()
        converter.close()
