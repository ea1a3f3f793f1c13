"""A run in the background (Runner.start / wait / cancel), as the MkDocs hook uses it: pages are
converted while the snippets run, each waiting only for the results it needs."""

from __future__ import annotations

import time

import pytest

from docexec.run.execute import ExecutionError
from docexec.run.results import UnknownTargetError
from docexec.run.runner import Runner

from .conftest import run_all, shared_runner, write_snippets
from .test_execute import assert_ends


def test_start_returns_while_snippets_run_and_wait_gives_each_result_as_it_comes(tmp_path):
    gate = tmp_path / "gate"
    write_snippets(tmp_path, {
        "snippets/c/fast.py": "print('fast')  # fast\n",
        # runs until the test opens the gate: its result cannot be in before the test says so
        "snippets/c/gated.py": f"""
            import os, time
            while not os.path.exists({str(gate)!r}):
                time.sleep(0.02)
            print('gated')  # gated
        """,
    })
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start()
        assert "snippets/c/gated.py" not in runner.results().runs
        results = runner.wait(["snippets/c/fast.py"])
        assert results.runs["snippets/c/fast.py"].output == "fast\n"
        assert "snippets/c/gated.py" not in results.runs  # still running: wait() waited for fast.py only
        assert results.output("c/fast.py") == "fast"  # output() never waits or runs
        with pytest.raises(UnknownTargetError):
            results.output("c/gated.py")
        gate.write_text("open")
        results = runner.wait()
    assert list(results.runs) == ["snippets/c/fast.py", "snippets/c/gated.py"]  # discover() order, not arrival
    assert results.runs["snippets/c/gated.py"].output == "gated\n"
    assert results.tally() == {"run": 2, "cached": 0, "not_run": 0}


def test_cached_results_are_in_as_soon_as_start_returns(tmp_path):
    write_snippets(tmp_path, {"snippets/c/a.py": "print(1)  # 1\n"})
    run_all(tmp_path)
    again = Runner(tmp_path)
    again.start()
    assert again.results().runs["snippets/c/a.py"].cached and again.executed == []


@pytest.mark.slow  # stops its worker
def test_cancel_stops_the_worker_and_the_snippets_it_runs(tmp_path):
    pid_file = tmp_path / "pid"
    write_snippets(tmp_path, {"snippets/c/sleeper.py": f"""
        # docexec: timeout=300
        import os, time
        open({str(pid_file)!r}, "w").write(str(os.getpid()))
        time.sleep(200)
    """})
    runner = Runner(tmp_path, cache=False)
    runner.start()
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    started = time.monotonic()
    runner.cancel()
    assert time.monotonic() - started < 15  # not the snippet's 200 s
    assert_ends(int(pid_file.read_text()), "the snippet still runs after cancel()")
    assert runner.wait().runs == {}  # nothing came in, and nothing is raised for a cancelled run
    with pytest.raises(ExecutionError, match="stopped"):  # a result that never came says so
        runner.wait(["snippets/c/sleeper.py"])


def test_a_worker_that_dies_is_reported_by_wait_not_lost_in_the_thread(tmp_path):
    write_snippets(tmp_path, {"snippets/c/a.py": "print(1)  # 1\n"})
    runner = Runner(tmp_path, cache=False)
    runner.start()
    runner._workers.running.kill()  # the worker dies while it imports torch, before it runs anything
    with pytest.raises(ExecutionError, match="exited with status -9 before running any snippet"):
        runner.wait()
    with pytest.raises(ExecutionError):  # and again: a failed run gives no results
        runner.wait(["snippets/c/a.py"])


def test_a_new_run_does_not_hand_out_the_last_runs_result_of_a_snippet_it_runs_again(tmp_path):
    gate = tmp_path / "gate"
    write_snippets(tmp_path, {"snippets/c/a.py": "print('one')  # one\n"})
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start()
        runner.wait()
        write_snippets(tmp_path, {"snippets/c/a.py": f"""
            import os, time
            while not os.path.exists({str(gate)!r}):
                time.sleep(0.02)
            print('two')  # two
        """})
        runner.start()
        assert "snippets/c/a.py" not in runner.results().runs  # the last run's 'one' is not this run's
        gate.write_text("open")
        assert runner.wait(["snippets/c/a.py"]).output("c/a.py") == "two"


def test_a_runner_keeps_its_worker_for_the_next_run(tmp_path):
    """Under ``mkdocs serve`` a runner serves every rebuild: the worker that ran the last edit, with
    torch imported, runs the next one (a fork, not a new import)."""
    write_snippets(tmp_path, {"snippets/c/a.py": 'print("one")  # one\n'})
    runner = Runner(tmp_path)
    try:
        runner.start()
        runner.wait()
        first = runner._workers.kept
        assert first is not None and first.poll() is None
        write_snippets(tmp_path, {"snippets/c/a.py": 'print("two")  # two\n'})
        runner.start()
        assert runner.wait().output("c/a.py") == "two" and runner._workers.kept is first
    finally:
        runner.close()
    assert first.poll() is not None  # closed with the runner


def test_a_worker_handed_over_runs_the_next_runners_snippets_in_another_repository(tmp_path):
    """``hand_over`` takes the kept worker out of a runner (which then stops nothing when closed);
    ``Runner(worker=...)`` runs its first run with it: the example's parent is that worker."""
    write_snippets(tmp_path / "a", {"snippets/c/a.py": 'print("one")  # one\n'})
    write_snippets(tmp_path / "b", {"snippets/c/b.py": "import os\nprint(os.getppid())\n"})
    first = Runner(tmp_path / "a")
    first.start()
    first.wait()
    worker = first.hand_over()
    first.close()
    assert worker is not None and worker.poll() is None and first.hand_over() is None
    second = Runner(tmp_path / "b", cache=False, worker=worker)
    try:
        second.start()
        assert second.wait().runs["snippets/c/b.py"].output == f"{worker.pid}\n"
        assert second.hand_over() is worker
    finally:
        second.close()
        worker.kill()
        worker.wait()


def test_a_worker_of_another_interpreter_is_refused(tmp_path):
    """Its snippets would see another torch, and their results would be cached as this one's."""
    from types import SimpleNamespace

    with pytest.raises(ValueError, match="a worker of /other/python cannot run the snippets"):
        Runner(tmp_path, worker=SimpleNamespace(python="/other/python"))


@pytest.mark.slow
def test_keep_ready_starts_the_worker_that_the_next_run_uses_when_every_result_was_cached(tmp_path):
    """``mkdocs serve`` asks for a worker after a first build that ran nothing: the first edited
    example is then run by it, not by a worker that must import torch first."""
    write_snippets(tmp_path, {"snippets/c/a.py": 'print("one")  # one\n'})
    first = Runner(tmp_path)
    first.start()
    first.wait()
    first.close()
    runner = Runner(tmp_path)
    try:
        runner.start()
        runner.wait()
        assert runner.executed == [] and runner._workers.kept is None  # all from the cache
        runner.keep_ready()
        ready = runner._workers.kept
        assert ready is not None and ready.poll() is None
        runner.keep_ready()
        assert runner._workers.kept is ready  # one is enough
        write_snippets(tmp_path, {"snippets/c/a.py": 'print("two")  # two\n'})
        runner.start()
        assert runner.wait().output("c/a.py") == "two" and runner._workers.kept is ready
    finally:
        runner.close()
    assert_ends(ready.pid, "the ready worker outlived its runner")


def test_a_snippet_edited_between_prestart_and_start_is_looked_up_again(tmp_path):
    """``start`` reuses the options and keys ``prestart`` found (MkDocs calls one in on_config, the
    other in on_files) only for bytes that are still the same."""
    write_snippets(tmp_path, {"snippets/c/a.py": "# docexec: timeout=5\nprint('one')  # one\n"})
    run_all(tmp_path)
    runner = Runner(tmp_path)
    try:
        runner.prestart()
        assert runner._workers.kept is None  # every result is in the cache
        write_snippets(tmp_path, {"snippets/c/a.py": "# docexec: timeout=6\nprint('two')  # two\n"})
        runner.start()
        results = runner.wait()
        assert runner.executed == ["snippets/c/a.py"] and results.output("c/a.py") == "two"
    finally:
        runner.close()


def test_a_snippets_options_and_key_are_found_once_for_its_bytes(tmp_path, monkeypatch):
    """A warm build looks up every snippet: the extension's prestart (once per page on some hosts),
    start, and every rebuild under mkdocs serve reuse what was found for the same bytes."""
    import docexec.run.runner

    write_snippets(tmp_path, {"snippets/c/a.py": "print(1)  # 1\n", "snippets/c/b.py": "print(2)  # 2\n"})
    run_all(tmp_path)
    found = []
    monkeypatch.setattr(docexec.run.runner, "options", lambda source: found.append(source) or {})
    with shared_runner(tmp_path) as runner:
        for _ in range(3):
            runner.prestart(first_run_only=True)
        runner.start()
        runner.wait()
        runner.start()  # a rebuild
        runner.wait()
        assert len(found) == 2
        write_snippets(tmp_path, {"snippets/c/a.py": "print(3)  # 3\n"})
        runner.start()
        assert runner.wait().output("c/a.py") == "3" and len(found) == 3


def test_waiting_for_some_snippets_gives_their_results_only(tmp_path):
    """A chapter's notebook waits for its chapter's snippets and reads their results only (a view
    of every run, made for each chapter, cost more than the notebook's key at 10x)."""
    write_snippets(tmp_path, {"snippets/c/a.py": "print(1)  # 1\n", "snippets/c/b.py": "print(2)  # 2\n"})
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start()
        some = runner.wait(["snippets/c/b.py"])
        assert list(some.runs) == ["snippets/c/b.py"] and some.executed == ["snippets/c/b.py"]
        assert list(some.sources) == ["snippets/c/b.py"] and some.output("c/b.py") == "2"
        assert list(runner.wait().runs) == ["snippets/c/a.py", "snippets/c/b.py"]


@pytest.mark.slow  # stops its worker
def test_a_runner_nobody_closed_stops_its_kept_worker_when_it_is_dropped(tmp_path):
    """A runner keeps its worker for the next run (mkdocs serve); one that is dropped without
    close() must not leave that worker behind (tests and tools make many runners in one process)."""
    import gc

    write_snippets(tmp_path, {"snippets/c/a.py": "print(1)  # 1\n"})
    runner = Runner(tmp_path, cache=False)
    runner.start()
    runner.wait()
    worker = runner._workers.kept
    assert worker is not None and worker.poll() is None  # kept for the next run
    del runner
    gc.collect()
    assert_ends(worker.pid, "the dropped runner left its worker running")


def test_snippets_named_first_run_first_and_results_keep_the_folders_order(tmp_path):
    write_snippets(tmp_path, {f"snippets/c/{name}.py": f"print({name!r})  # {name}\n" for name in "abc"})
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start(first=["snippets/c/c.py", "snippets/c/b.py"])
        assert runner.executed == ["snippets/c/c.py", "snippets/c/b.py", "snippets/c/a.py"]  # as sent to the worker
        assert list(runner.wait().runs) == ["snippets/c/a.py", "snippets/c/b.py", "snippets/c/c.py"]


def test_a_snippet_that_starts_a_program_is_sent_before_the_others(tmp_path):
    """Longest job first: a snippet that starts another Python (torch imported anew) would otherwise
    end the run alone on one core."""
    write_snippets(tmp_path, {"snippets/c/a.py": "print('a')  # a\n",
                              "snippets/c/b.py": "print('b')  # b\n",
                              "snippets/c/c.py": "import subprocess\nprint('c')  # c\n"})
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start(first=["snippets/c/a.py", "snippets/c/b.py", "snippets/c/c.py"])
        assert runner.executed == ["snippets/c/c.py", "snippets/c/a.py", "snippets/c/b.py"]
        assert list(runner.wait().runs) == ["snippets/c/a.py", "snippets/c/b.py", "snippets/c/c.py"]


def test_groups_whose_modules_the_worker_imported_run_in_the_first_group_in_order():
    """A sub-worker would fork only to import nothing (the worker imported the slow modules before
    forking): its snippets join the first group, in the order the caller gave."""
    from docexec.run.protocol import Group, Request

    request = Request(root="/r", groups=[Group([], ["a", "c"]), Group(["json"], ["b", "d"]),
                                         Group(["not_imported_here"], ["e"])], order=["d", "a", "b", "c", "e"])
    merged = request.merged(lambda module: module == "json")
    assert merged == [Group([], ["d", "a", "b", "c"]), Group(["not_imported_here"], ["e"])]
    assert request.merged(lambda module: False) == request.groups
    assert Request.loads(request.dumps()).order == request.order


def test_the_shared_worker_serves_the_next_test_and_a_changed_environment_starts_another(tmp_path, monkeypatch):
    """The tests' runs share one worker per test process (``run_all``): pytest names the test
    running in ``PYTEST_CURRENT_TEST``, which must not count as a change of the environment;
    a variable a test sets does, since the worker started without it."""
    from .conftest import SHARED

    write_snippets(tmp_path, {"snippets/c/pid.py": "import os\nprint(os.getppid() > 0)  # True\n"})
    run_all(tmp_path, cache=False)
    first = SHARED.worker
    assert first is not None and first.poll() is None
    monkeypatch.setenv("PYTEST_CURRENT_TEST", "tests/test_other.py::test_next (call)")
    run_all(tmp_path, cache=False)
    assert SHARED.worker is first
    monkeypatch.setenv("DOCEXEC_TEST_VARIABLE", "1")
    run_all(tmp_path, cache=False)
    assert SHARED.worker is not first and first.poll() is not None


def test_a_snippet_that_compiles_starts_with_what_a_first_compile_imports(tmp_path):
    """``torch.compile``'s first call imports AOTAutograd, the backends and much of Inductor (about
    1.1 s on torch 2.13): imported once in the sub-worker of such snippets, not in each. The count
    bounds what a next PyTorch adds to that list (``docexec.run.hints.COMPILE_IMPORTS``) before the list is brought up
    to date."""
    write_snippets(tmp_path, {"snippets/c/compiled.py": """
        import sys
        before = set(sys.modules)
        import torch
        f = torch.compile(lambda x: (x * 2).sin(), backend="aot_eager")
        f(torch.ones(2, requires_grad=True)).sum().backward()
        print(len(set(sys.modules) - before) < 40)  # True
    """, "snippets/c/plain.py": "import sys\nprint('torch._inductor.compile_fx' in sys.modules)  # False\n"})
    with shared_runner(tmp_path, cache=False) as runner:
        runner.start()
        results = runner.wait()
    assert results.runs["snippets/c/compiled.py"].output == "True\n"
    assert results.runs["snippets/c/plain.py"].output == "False\n"


def test_what_a_run_of_compiling_snippets_imported_does_not_reach_the_next_runs_snippets(tmp_path):
    """A worker serves run after run (mkdocs serve): a run of only snippets that compile must not
    leave their slow imports in the worker for the snippets of a later run."""
    write_snippets(tmp_path, {
        "snippets/c/compiled.py": "import torch\nf = torch.compile(lambda x: x + 1, backend='eager')\n"
                                  "print(f(torch.ones(1)).item())  # 2.0\n",
        "snippets/c/plain.py": "import sys\nprint('torch._inductor.compile_fx' in sys.modules)  # False\n"})
    with shared_runner(tmp_path, cache=False) as runner:  # it keeps its worker from one run to the next
        runner.start(["snippets/c/compiled.py"])
        assert runner.wait().runs["snippets/c/compiled.py"].output == "2.0\n"
        runner.start(["snippets/c/plain.py"])
        assert runner.wait().runs["snippets/c/plain.py"].output == "False\n"
