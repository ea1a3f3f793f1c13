"""Snippets that misbehave on purpose (tests/fixtures/hostile/): every one ends in a clear report.

They all run in one results, as a build would run them, so these tests also show that one bad
snippet does not stop the others.
"""

from __future__ import annotations

import shutil

import pytest

from docexec.run.results import Results
from docexec.run.runner import Runner

from .conftest import ROOT, run_all

FOLDER = "tests/fixtures/hostile"


@pytest.fixture(scope="module")
def results() -> Results:
    return run_all(ROOT, FOLDER)


def problem(results: Results, name: str) -> str:
    found = [str(p) for p in results.problems() if p.path == f"{FOLDER}/{name}"]
    assert len(found) == 1, found
    return found[0]


def test_an_endless_loop_is_stopped_at_its_timeout_with_its_line(results):
    assert problem(results, "forever.py") == f"{FOLDER}/forever.py:3: the snippet ran longer than 2 s and was stopped"
    assert results.runs[f"{FOLDER}/forever.py"].seconds < 10


def test_a_snippet_that_ends_just_before_its_timeout_is_a_timeout_not_a_run_with_a_traceback_in_its_output(results):
    """faulthandler writes where the snippet is 0.2 s before the worker stops it; a snippet that
    ends in between must not pass with that text as its output."""
    run = results.runs[f"{FOLDER}/nearly_forever.py"]
    assert not run.ok and run.failure.error == "Timeout", (run.ok, run.failure.message)
    # the line it had reached, as faulthandler wrote it (killed at 2 s instead, on a busy machine, it says the same)
    assert problem(results, "nearly_forever.py").startswith(f"{FOLDER}/nearly_forever.py:7: the snippet ran ")
    assert "time.sleep" in run.failure.traceback or "nearly_forever.py" in run.failure.traceback


@pytest.mark.parametrize("name, report", [
    ("sys_exit.py", "sys_exit.py:4: the snippet called sys.exit(3)"),
    ("os_exit.py", "os_exit.py:3: the interpreter exited with status 1 (os._exit or a crash)"),
    ("keyboard_interrupt.py", "keyboard_interrupt.py:2: raised KeyboardInterrupt"),
    ("segfault.py", "segfault.py:4: the interpreter was killed by SIGSEGV"),
])
def test_exits_interrupts_and_crashes_are_that_snippets_failure(results, name, report):
    assert problem(results, name) == f"{FOLDER}/{report}"


def test_unbounded_allocation_is_stopped_by_the_memory_limit(results):
    report = problem(results, "memory_hog.py")
    assert report.startswith(f"{FOLDER}/memory_hog.py:6: raised RuntimeError:") and "can't allocate memory" in report


def test_the_others_still_run_and_pass(results):
    for name in ("still_runs.py", "uses_name.py", "big_output.py", "writes_files.py", "random_values.py"):
        assert results.runs[f"{FOLDER}/{name}"].ok
        assert not [p for p in results.problems() if p.path == f"{FOLDER}/{name}"]


def test_ten_megabytes_of_output_are_cut_on_the_page_and_in_the_notebook_alike(results):
    shown = results.output("big_output.py")
    assert len(shown) < 25_000
    assert shown.endswith("[… output cut here: 9,980,005 more characters, 2 more lines]")
    from docexec.pages.render import include_output
    from docexec.source.includes import Fence, Include

    fence = Fence(0, 2, "", (Include(2, "big_output.py", f"{FOLDER}/big_output.py", None),), True)
    (cell,) = include_output(results, fence).cells  # what a notebook cell gets
    assert "".join(chunk.text for chunk in cell.chunks).rstrip("\n") == shown


def test_files_written_by_a_snippet_land_outside_the_repository(results):
    assert not list(ROOT.rglob("written_by_snippet.*"))


def test_random_values_are_the_same_on_every_build(results):
    # The claims in random_values.py were written from one run; they hold on every later run.
    assert results.output("random_values.py").splitlines()[0] == "tensor([0.4963, 0.7682, 0.0885])"


def test_a_deleted_definition_fails_the_next_run_in_the_same_process(tmp_path):
    """What `mkdocs serve` does: the same process runs the snippets again after an edit."""
    snippet = tmp_path / "snippets" / "s" / "uses_name.py"
    snippet.parent.mkdir(parents=True)
    shutil.copy2(ROOT / FOLDER / "uses_name.py", snippet)
    runner = Runner(tmp_path)
    runner.start()
    assert runner.wait().problems() == []
    snippet.write_text(snippet.read_text().replace("value = 41\n", ""))
    runner.start()
    assert [str(p) for p in runner.wait().problems()] == [
        "snippets/s/uses_name.py:1: raised NameError: name 'value' is not defined"]


def test_options_are_read_in_a_file_whose_lines_end_in_carriage_returns():
    from docexec.source.snippets import OptionsError, options

    assert options("x = 1\r# docexec: timeout=5\rprint(x)  # 1\r") == {"timeout": 5.0}
    with pytest.raises(OptionsError) as bad:
        options("x = 1\r# docexec: figure=bogus\rprint(x)  # 1\r")
    assert bad.value.line == 2


def test_an_option_line_inside_a_string_is_text_not_an_option(tmp_path):
    snippet = tmp_path / "snippets" / "s" / "text.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text('doc = """\n# docexec: timeout=0\n"""\nprint(len(doc))  # 22\n')
    assert run_all(tmp_path).problems() == []


@pytest.mark.parametrize("source", [
    "doc = \"\"\"\n# docexec: timeout=0\n\"\"\"\n",
    "doc = \'\'\'\n# docexec: timeout=0\n\'\'\'\n",
    "doc = 'one \\\n# docexec: timeout=0'\n",  # a string continued over a line break
    "doc = 'one \\\r# docexec: timeout=0'\r",
])
def test_every_way_a_string_goes_on_over_a_line_break_hides_an_option_line(source):
    """The tokenizer is asked only where a string can go on over a line break: each way is seen."""
    from docexec.source.snippets import options

    assert options(source) == {}
    assert options(source + "# docexec: timeout=5\n") == {"timeout": 5.0}


@pytest.mark.parametrize(("line", "reason"), [
    ("# docexec: timeout=soon", "docexec option timeout needs a number of seconds from 0.1 to 3600, got 'soon'"),
    ("# docexec: timeout=nan", "docexec option timeout needs a number of seconds from 0.1 to 3600, got 'nan'"),
    ("# docexec: timeout=inf", "docexec option timeout needs a number of seconds from 0.1 to 3600, got 'inf'"),
    ("# docexec: timeout=0", "docexec option timeout needs a number of seconds from 0.1 to 3600, got '0'"),
    ("# docexec: timeout=-1", "docexec option timeout needs a number of seconds from 0.1 to 3600, got '-1'"),
    ("# docexec: memory=0", "docexec option memory needs a number of MiB from 16 to 1.04858e+06, got '0'"),
    ("# docexec: memory=nan", "docexec option memory needs a number of MiB from 16 to 1.04858e+06, got 'nan'"),
    ("# docexec: memory=inf", "docexec option memory needs a number of MiB from 16 to 1.04858e+06, got 'inf'"),
    ("# docexec: speed=2", "unknown docexec option 'speed' (known: timeout, memory, figure, draw)"),
    ("if True:\n    # docexec: timeout=5\n    pass", "a '# docexec:' option line must start at the first column"),
    ("# docexec: timeout=5 timeout=6", "docexec option timeout is given twice (line 2 and here)"),
    ("# docexec:", "a '# docexec:' line names no option (known: timeout, memory, figure, draw)"),
    ("# docexec: figure=+saved", "docexec option figure takes gradients, saved, versions, hooks, cuts, tangents "
                                 "(several joined with '+', each once), or none; got '+saved'"),
    ("# docexec: figure=saved+saved", "docexec option figure takes gradients, saved, versions, hooks, cuts, "
                                      "tangents (several joined with '+', each once), or none; got 'saved+saved'"),
    ("# docexec: draw=w+", "docexec option draw takes the names the figure draws, such as y or model.weight "
                           "(several joined with '+', each once); got 'w+'"),
    ("# docexec: figure=none draw=w", "docexec option draw names what the figure draws, and "
                                     "figure=none asks for no figure: give one of them"),
    ("# docexec: draw=w[0]", "docexec option draw takes the names the figure draws, such as y or model.weight "
                             "(several joined with '+', each once); got 'w[0]'"),
])
def test_bad_options_are_reported_with_their_line_and_what_is_allowed(tmp_path, line, reason):
    snippet = tmp_path / "snippets" / "s" / "bad.py"
    snippet.parent.mkdir(parents=True)
    snippet.write_text(f"print(1)  # 1\n{line}\nprint(2)  # 2\n")
    number = 2 + line.split("# docexec")[0].count("\n")
    assert [str(p) for p in run_all(tmp_path).problems()] == [f"snippets/s/bad.py:{number}: {reason}"]
