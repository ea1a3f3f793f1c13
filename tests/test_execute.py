"""Running snippets: captured output, isolation between snippets, and failures with file:line."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from pathlib import Path

import pytest

from docexec.run.execute import run_snippets
from docexec.run.results import Results
from docexec.run.runner import Runner
from docexec.source import claims

from .conftest import ROOT, run_all, write_snippets


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, dict]:
    """One worker run over every fixture snippet below (torch is imported once for all)."""
    root = tmp_path_factory.mktemp("repo")
    paths = write_snippets(root, {
        "snippets/t/a_changes_globals.py": """
            import os
            import torch
            torch.set_grad_enabled(False)
            torch.set_default_dtype(torch.float64)
            leaked = "from a"
            open("written_by_a.txt", "w").write("x")
            print(os.getppid())
            """,
        "snippets/t/b_sees_defaults.py": """
            import os
            import sys
            torch_was_loaded = "torch" in sys.modules
            import torch
            print(torch.is_grad_enabled(), torch.get_default_dtype())  # True torch.float32
            print("leaked" in globals(), os.path.exists("written_by_a.txt"))  # False False
            print(torch_was_loaded)  # True -> imported once by the worker, before the snippet
            print(os.getppid())  # ... -> the worker's pid
            """,
        "snippets/t/streams.py": """
            import logging
            import sys
            import warnings
            import helper_module
            print("one")
            sys.stdout.write("two\\n")
            sys.stderr.write("three\\n")
            warnings.warn("four")
            logging.warning("five")
            helper_module.shout()
            """,
        "snippets/t/helper_module.py": """
            def shout():
                print("six")
            """,
        "snippets/t/addresses.py": """
            class Thing:
                pass
            t = Thing()
            print(repr(t))  # <__main__.Thing object at 0x...>
            print(str(t))  # <__main__.Thing object at 0x…>
            print(f"value: {t}")  # value: <__main__.Thing object at 0x…>
            print(hex(id(t)))  # 0x…
            print(id(t))  # …
            print("offset at 0x10", 0xffffff, 1234567, 2**40)  # offset at 0x10 16777215 1234567 1099511627776
            """,
        "snippets/t/raw_order.py": """
            import os
            print("first")  # first
            os.write(1, b"written below Python\\n")
            print("last")  # last
            """,
        "snippets/t/forks.py": """
            import os
            import time
            if os.fork() == 0:
                time.sleep(60)
                os._exit(0)
            print("parent done")  # parent done
            """,
        "snippets/t/raises.py": """
            import torch
            x = torch.ones(2)
            def inner():
                raise ValueError("broken on purpose")
            inner()
            """,
    })
    return root, run_snippets(root, paths, jobs=1)


def test_global_state_of_one_snippet_does_not_reach_the_next(runs):
    root, results = runs
    b = results["snippets/t/b_sees_defaults.py"]
    assert b.ok, b.failure.traceback
    source = (root / "snippets/t/b_sees_defaults.py").read_text()
    assert [str(p) for p in claims.check(b.path, source, b.prints)] == []


def test_torch_is_imported_once_by_one_worker(runs):
    _, results = runs
    a_parent = results["snippets/t/a_changes_globals.py"].prints[-1].text
    b_parent = results["snippets/t/b_sees_defaults.py"].prints[-1].text
    assert a_parent == b_parent  # both children were forked by the same worker


def test_files_written_by_a_snippet_stay_out_of_the_repository(runs):
    root, _ = runs
    assert not list(root.rglob("written_by_a.txt"))


def test_every_kind_of_output_is_captured_in_order(runs):
    _, results = runs
    output = results["snippets/t/streams.py"].output
    lines = output.splitlines()
    assert lines[0:3] == ["one", "two", "three"]
    assert lines[3] == "snippets/t/streams.py:8: UserWarning: four"
    assert lines[5:7] == ["WARNING:root:five", "six"]


def test_output_is_attributed_to_the_snippet_line_that_ran(runs):
    _, results = runs
    chunks = results["snippets/t/streams.py"].chunks
    assert [chunk.line for chunk in chunks if chunk.text == "six\n"] == [10]
    assert [chunk.stream for chunk in chunks if chunk.text in ("two\n", "three\n")] == ["stdout", "stderr"]


def test_addresses_and_ids_are_masked_and_nothing_else(runs):
    """Addresses in reprs, str and f-strings, hex(id(x)) and id(x) change from run to run: the run
    says which printed numbers were addresses, and those alone are masked, on the page and in claims."""
    root, results = runs
    result = results["snippets/t/addresses.py"]
    assert "0x" in result.output and "0x…" not in result.output  # real addresses were printed
    assert len(result.addresses) == 2  # t's address, as hex and as a decimal id
    source = (root / "snippets/t/addresses.py").read_text()
    assert claims.check(result.path, source, claims.masked(result)) == []
    masked = claims.mask(result.output, result.addresses)
    assert "offset at 0x10 16777215 1234567 1099511627776" in masked and masked.count("0x…") == 4
    wrong = source.replace("# offset at 0x10 ", "# offset at 0x20 ")
    (problem,) = claims.check(result.path, wrong, claims.masked(result))
    assert "claimed 'offset at 0x20" in problem.message


def test_a_snippet_that_raises_is_reported_with_file_line_and_exception(runs):
    root, results = runs
    (problem,) = Results(root, "snippets", {"snippets/t/raises.py": results["snippets/t/raises.py"]},
                         {"snippets/t/raises.py": (root / "snippets/t/raises.py").read_text()}).problems()
    assert str(problem) == "snippets/t/raises.py:4: raised ValueError: broken on purpose"
    assert 'File "snippets/t/raises.py", line 5' in problem.detail


def test_snippet_runs_with_python_alone(tmp_path):
    """The claims mechanism needs nothing inside the snippet: it runs with plain python too."""
    import subprocess
    import sys

    from .conftest import ROOT

    path = ROOT / "snippets/computational-graph/opt_in.py"
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.splitlines()[0] == "True"


def test_output_written_below_python_keeps_its_place(runs):
    _, results = runs
    assert results["snippets/t/raw_order.py"].output == "first\nwritten below Python\nlast\n"


def test_a_process_the_snippet_leaves_behind_does_not_hold_up_the_build(runs):
    _, results = runs
    result = results["snippets/t/forks.py"]
    assert result.ok and result.output == "parent done\n"
    # The whole module's run (all fixtures) would take 60 s if the grandchild kept the pipe open.
    assert max(r.seconds for r in results.values()) < 30


@pytest.fixture(scope="module")
def grouped(tmp_path_factory) -> tuple[Path, dict]:
    """One run with three groups: no module to import first, ``json.tool``, and ``die_on_import``
    (a module that ends the process importing it, so its sub-worker never runs a snippet)."""
    root = tmp_path_factory.mktemp("grouped")
    timed = """
        import sys
        import time
        started = time.time()
        time.sleep(0.3)
        print("json.tool" in sys.modules, started, time.time())
        """
    paths = write_snippets(root, {
        "snippets/g/plain_1.py": timed,
        "snippets/g/plain_2.py": timed,
        "snippets/g/needs_json_tool_1.py": timed,
        "snippets/g/needs_json_tool_2.py": timed,
        "snippets/g/never_runs.py": 'print("unreachable")\n',
        "die_on_import.py": "import os\nos._exit(3)\n",
    })
    snippets = [p for p in paths if p.startswith("snippets/")]
    needs = {p: ["json.tool"] for p in snippets if "json_tool" in p}
    needs["snippets/g/never_runs.py"] = ["die_on_import"]
    return root, run_snippets(root, snippets, jobs=1, needs=needs)


def test_a_group_runs_with_its_modules_imported_and_the_others_without(grouped):
    _, results = grouped
    imported = {path: r.output.split()[0] for path, r in results.items() if r.ok}
    assert imported == {"snippets/g/plain_1.py": "False", "snippets/g/plain_2.py": "False",
                        "snippets/g/needs_json_tool_1.py": "True", "snippets/g/needs_json_tool_2.py": "True"}


def test_worker_and_sub_workers_together_run_at_most_jobs_snippets_at_once(grouped):
    _, results = grouped
    spans = sorted(tuple(map(float, r.output.split()[1:])) for r in results.values() if r.ok)
    assert len(spans) == 4
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end - 0.01  # jobs=1: no two snippets overlap, whichever process forked them


def test_a_sub_worker_that_dies_is_reported_for_each_of_its_snippets(grouped):
    _, results = grouped
    result = results["snippets/g/never_runs.py"]
    assert not result.ok and result.failure.error == "Crash"
    assert result.failure.message == ("the sub-worker that was to run it ended first: "
                                    "the interpreter exited with status 3 (os._exit or a crash)")


def test_the_extension_starts_the_worker_early_once_and_never_after_a_run(tmp_path):
    from docexec.host.markdown_ext import SnippetOutputExtension

    write_snippets(tmp_path, {"snippets/c/one.py": "print(1)  # 1\n"})
    from docexec.host import build

    runner = Runner(tmp_path, cache=False)
    build._RUNNERS[(tmp_path.resolve(), "snippets")] = runner
    try:
        SnippetOutputExtension(root=str(tmp_path), start_early=True)
        early = runner._workers.kept
        assert early is not None  # started while the generator loads the rest of its config
        SnippetOutputExtension(root=str(tmp_path), start_early=True)
        assert runner._workers.kept is early  # not a second one
        runner.start()
        runner.wait()
        assert runner._workers.kept is early and early.poll() is None  # the run used that worker, and kept it
        SnippetOutputExtension(root=str(tmp_path), start_early=True)  # as for every page after the run
        assert runner._workers.kept is early  # not a second one
        SnippetOutputExtension(root=str(tmp_path))
        assert runner._workers.kept is early
    finally:
        runner.close()
        del build._RUNNERS[(tmp_path.resolve(), "snippets")]
    assert early.poll() is not None


@pytest.mark.slow  # stops its worker
def test_a_sub_worker_killed_while_its_snippet_runs_gives_its_slot_back(tmp_path):
    """jobs=1: the sub-worker's snippet holds the only slot when it kills the sub-worker; the worker
    must get that slot back and run its own snippet, not wait for it forever."""
    import threading

    from docexec.run.execute import start_worker

    paths = write_snippets(tmp_path, {
        "snippets/k/after.py": 'print("ran after")  # ran after\n',
        "snippets/k/kills_its_parent.py": f"""
            import os
            import signal
            import time
            open({str(tmp_path / "killer.pid")!r}, "w").write(str(os.getpid()))
            os.kill(os.getppid(), signal.SIGKILL)
            time.sleep(60)
            """,
        # the worker's import ends once the sub-worker's snippet holds the slot, however loaded the machine
        "slow_import.py": f"""
            import os
            import time
            deadline = time.monotonic() + 20  # past it, the test fails on what ran instead of hanging
            while not os.path.exists({str(tmp_path / "killer.pid")!r}) and time.monotonic() < deadline:
                time.sleep(0.01)
            """,
    })
    snippets = [p for p in paths if p.startswith("snippets/")]
    needs = {"snippets/k/after.py": ["slow_import"], "snippets/k/kills_its_parent.py": ["json.tool"]}
    worker = start_worker(tmp_path)
    found: dict = {}
    thread = threading.Thread(target=lambda: found.update(
        run_snippets(tmp_path, snippets, jobs=1, needs=needs, worker=worker)), daemon=True)
    thread.start()
    # the time allowed counts from the sub-worker's death: starting the worker and the sub-worker
    # takes what a loaded machine makes it take
    appeared = _wait_until(lambda: (tmp_path / "killer.pid").exists() or not thread.is_alive(), 300)
    thread.join(30)
    if thread.is_alive():
        worker.kill()
        pytest.fail("the worker waited for a slot that the dead sub-worker never gave back"
                    + ("" if appeared else " (the snippet that kills it never started)"))
    assert found["snippets/k/after.py"].output == "ran after\n"
    killed = found["snippets/k/kills_its_parent.py"]
    assert killed.failure.error == "Crash"
    assert killed.failure.message == "the sub-worker running it ended first: the interpreter was killed by SIGKILL"
    status = Path(f"/proc/{(tmp_path / 'killer.pid').read_text()}/status")
    # stopped by the worker (gone, or a zombie nobody has reaped yet), not left sleeping for 60 s
    assert not status.exists() or "\tZ" in status.read_text().split("State:")[1].splitlines()[0]


def _wait_until(condition, seconds: float) -> bool:
    """Whether ``condition()`` came true within ``seconds`` (looked at every 50 ms)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.slow  # stops its worker
def test_a_worker_killed_by_its_snippet_leaves_no_sub_worker_waiting_for_a_slot(tmp_path):
    """jobs=1: the worker's own snippet holds the only slot when it kills the worker. Its
    sub-worker, left with a snippet to run, must notice and end: waiting for that slot, it would
    keep the build's end of the result pipe open, and the build would wait for ever."""
    import threading

    from docexec.run.execute import start_worker

    paths = write_snippets(tmp_path, {
        "snippets/k/kills_the_worker.py": f"""
            import os
            import signal
            import time
            open({str(tmp_path / "slot.taken")!r}, "w").close()
            time.sleep(0.5)  # the sub-worker, done importing, now waits for the slot
            os.kill(os.getppid(), signal.SIGKILL)
            """,
        "snippets/k/in_a_sub_worker.py": f"""
            import os
            open({str(tmp_path / "sub.pid")!r}, "w").write(str(os.getppid()))
            print("ran")  # ran
            """,
        # the sub-worker's import ends once the worker's snippet holds the slot, however loaded the machine
        "slow_import.py": f"""
            import os
            import time
            deadline = time.monotonic() + 20  # past it, the test fails on what ran instead of hanging
            while not os.path.exists({str(tmp_path / "slot.taken")!r}) and time.monotonic() < deadline:
                time.sleep(0.01)
            """,
    })
    snippets = [p for p in paths if p.startswith("snippets/")]
    worker = start_worker(tmp_path)
    answered: list = []

    def run() -> None:
        answered.append(run_snippets(tmp_path, snippets, jobs=1, worker=worker, again=False,
                                     needs={"snippets/k/in_a_sub_worker.py": ["slow_import"]}))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    # the time allowed counts from the worker's death: starting the worker and the sub-worker takes
    # what a loaded machine makes it take
    died = _wait_until(lambda: worker.poll() is not None or not thread.is_alive(), 300)
    thread.join(30)
    if thread.is_alive():
        worker.kill()
        pytest.fail("the build still waits: the sub-worker outlived its worker"
                    + ("" if died else " (the snippet that kills the worker never ran)"))
    results = answered[0]  # each snippet fails, saying why; nothing raises
    killer, other = results["snippets/k/kills_the_worker.py"], results["snippets/k/in_a_sub_worker.py"]
    assert not killer.ok and "killed by signal 9 while it ran this example" in killer.failure.message
    assert not other.ok and "signal 9" in other.failure.message
    assert not (tmp_path / "sub.pid").exists()  # the sub-worker ran nothing after its worker died


def test_a_snippet_sees_no_trace_of_the_workers_preparation(tmp_path):
    """What the worker does before forking (imports, warm-up, seeding) must not show: autograd
    sequence numbers start where a fresh interpreter's do, and a snippet gets the memory it asks for."""
    source = """
        # docexec: memory=300
        import torch
        x = torch.ones(2, requires_grad=True)
        print((x * 3).grad_fn._sequence_nr())
        block = bytearray(200 * 1024 * 1024)
        print(len(block) // 2**20)
        """
    paths = write_snippets(tmp_path, {"snippets/p/fresh.py": source})
    fresh = subprocess.run([sys.executable, str(tmp_path / paths[0])], capture_output=True, text=True, check=True)
    result = run_all(tmp_path, cache=False).runs[paths[0]]
    assert result.ok, result.failure.message
    assert result.output == fresh.stdout == "0\n200\n"


def test_each_result_is_handed_out_while_the_other_snippets_still_run(tmp_path):
    """``on_result`` gets a snippet's result as soon as it ends: here the slow snippet can only end
    after the callback has seen the quick one's result (it waits for a file the callback writes)."""
    go = tmp_path / "go"
    paths = write_snippets(tmp_path, {
        "snippets/s/quick.py": 'print("quick")  # quick\n',
        "snippets/s/slow.py": f"""
            import os
            import time
            deadline = time.monotonic() + 20
            while not os.path.exists({str(go)!r}) and time.monotonic() < deadline:
                time.sleep(0.01)
            print(os.path.exists({str(go)!r}))  # True
            """,
    })
    seen = []

    def on_result(result):
        seen.append(result.path)
        if result.path == "snippets/s/quick.py":
            go.write_text("")

    results = run_snippets(tmp_path, paths, jobs=2, on_result=on_result)
    assert results["snippets/s/slow.py"].output == "True\n"
    assert seen == ["snippets/s/quick.py", "snippets/s/slow.py"]


@pytest.mark.slow  # stops its worker
def test_a_failing_result_callback_stops_the_worker_and_every_snippet_it_runs(tmp_path):
    """The exception propagates, and the snippets still running, in the worker and in a
    sub-worker, are stopped rather than left to run on past their timeouts."""

    pids = {name: tmp_path / f"{name}.pid" for name in ("b", "c")}
    sleeper = "import os, time\nopen({!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
    paths = write_snippets(tmp_path, {
        "snippets/s/a.py": f"""
            import os
            import time
            deadline = time.monotonic() + 20
            files = {[str(p) for p in pids.values()]!r}
            while not all(os.path.exists(p) for p in files) and time.monotonic() < deadline:
                time.sleep(0.01)
            print("a")  # a
            """,
        "snippets/s/b.py": sleeper.format(str(pids["b"])),
        "snippets/s/c.py": sleeper.format(str(pids["c"])),
    })

    def on_result(result):
        raise RuntimeError(f"no room for {result.path}")

    with pytest.raises(RuntimeError, match="no room for snippets/s/a.py"):
        run_snippets(tmp_path, paths, jobs=3, needs={"snippets/s/c.py": ["json.tool"]}, on_result=on_result)
    for name, pid_file in pids.items():
        assert_ends(int(pid_file.read_text()), f"snippet {name} still runs after its worker was given up")


def assert_ends(pid: int, message: str, within: float = 10.0) -> None:
    """Fail with ``message`` unless process ``pid`` is gone (or a zombie) within ``within`` seconds."""
    import time

    status = Path(f"/proc/{pid}/status")
    deadline = time.monotonic() + within
    while True:
        try:
            state = status.read_text().split("State:")[1].splitlines()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if "Z" in state.split()[0]:
            return
        assert time.monotonic() < deadline, message
        time.sleep(0.05)


@pytest.mark.slow  # stops its worker
def test_ctrl_c_stops_the_worker_and_every_snippet_it_runs(tmp_path):
    """SIGINT to the worker (a Ctrl-C, had it the terminal: it leads a process group of its own,
    and under a build ends when the build does) does not reach the snippets, which lead process
    groups of their own: the worker must stop them as it ends."""
    import os
    import signal
    import threading
    import time

    from docexec.run.execute import start_worker

    pids = {name: tmp_path / f"{name}.pid" for name in ("a", "b")}
    sleeper = "import os, time\nopen({!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n"
    paths = write_snippets(tmp_path, {f"snippets/s/{name}.py": sleeper.format(str(pid_file))
                                      for name, pid_file in pids.items()})
    # As from a terminal: the tests themselves may run with SIGINT ignored (a background job of a
    # script), which the worker would inherit and keep (see the next test).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        worker = start_worker(tmp_path)
    finally:
        signal.signal(signal.SIGINT, previous)

    def press_ctrl_c():
        deadline = time.monotonic() + 30
        while not all(p.exists() and p.read_text() for p in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(worker.pid, signal.SIGINT)  # the terminal also signals the sub-worker; one is enough

    pressing = threading.Thread(target=press_ctrl_c)
    pressing.start()
    try:
        results = run_snippets(tmp_path, paths, jobs=2, needs={"snippets/s/b.py": ["json.tool"]}, worker=worker)
        assert not any(result.ok for result in results.values())  # each says the worker ended
    finally:
        pressing.join()
    for name, pid_file in pids.items():
        assert_ends(int(pid_file.read_text()), f"snippet {name} still runs after Ctrl-C ended its worker")
    assert worker.wait(timeout=10) == 128 + signal.SIGINT


@pytest.mark.slow
def test_a_build_started_with_sigint_ignored_keeps_its_worker_through_sigint(tmp_path):
    """A build started in the background of a non-interactive shell ignores SIGINT, and so do the
    processes it starts: a SIGINT meant for the foreground must not end its worker."""
    import os
    import signal
    import threading
    import time

    from docexec.run.execute import start_worker

    started = tmp_path / "started"
    paths = write_snippets(tmp_path, {
        "snippets/s/a.py": f"import time\nopen({str(started)!r}, 'w').write('x')\ntime.sleep(1)\n"
                           "print('done')  # done\n",
    })
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        worker = start_worker(tmp_path)  # inherits the ignored SIGINT through exec
    finally:
        signal.signal(signal.SIGINT, previous)

    def interrupt():
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        os.kill(worker.pid, signal.SIGINT)

    interrupting = threading.Thread(target=interrupt)
    interrupting.start()
    try:
        results = run_snippets(tmp_path, paths, worker=worker)
    finally:
        interrupting.join()
    assert results["snippets/s/a.py"].ok and results["snippets/s/a.py"].output == "done\n"


def test_the_worker_wakes_when_a_child_ends_not_at_its_next_look():
    """``_wait_for_work`` returns once a running child has ended (its pidfd), well before the
    one-second cap it would otherwise sleep when no timeout is near."""
    import os
    import time

    from docexec.run.worker import pool

    pid = os.fork()
    if pid == 0:
        time.sleep(0.05)
        os._exit(0)
    exit_fd = pool._exit_fd(pid)
    if exit_fd is None:
        os.waitpid(pid, 0)
        pytest.skip("no os.pidfd_open here: the worker looks every 2 ms instead")
    running = {pid: pool.Running("s.py", "", time.monotonic(), 30.0, exit_fd)}
    started = time.monotonic()
    try:
        pool._wait_for_work(running, {}, None)
        elapsed = time.monotonic() - started
        assert os.waitpid(pid, os.WNOHANG)[0] == pid  # it woke because the child had ended
    finally:
        os.close(exit_fd)
    assert elapsed < 0.9


@pytest.mark.slow
def test_a_slow_result_callback_does_not_hold_up_the_timeouts(tmp_path):
    """While ``on_result`` works on one result, a large result (more than a pipe holds) must not
    stall the worker: the snippet that runs forever is still stopped at its timeout."""
    import time

    paths = write_snippets(tmp_path, {
        "snippets/s/a_quick.py": 'print("quick")  # quick\n',
        "snippets/s/b_large.py": "import time\ntime.sleep(0.5)\nprint('x' * 300_000)\n",
        "snippets/s/c_forever.py": "while True:\n    pass\n",
    })
    slept = []

    def on_result(result):
        if not slept:
            slept.append(result.path)
            time.sleep(8)

    results = run_snippets(tmp_path, paths, jobs=3, options={"snippets/s/c_forever.py": {"timeout": 2}},
                           on_result=on_result)
    forever = results["snippets/s/c_forever.py"]
    assert forever.failure.error == "Timeout"
    assert forever.seconds < 6, f"stopped after {forever.seconds} s, not at its 2 s timeout"


@pytest.mark.slow
def test_a_first_use_of_torch_func_shows_what_it_warns_even_after_the_worker_imported_it(tmp_path, monkeypatch):
    """The worker imports what torch.func pulls in before forking, to spare each example the import;
    when that import warns (here PYTHONWARNINGS=always shows the DeprecationWarnings torch 2.13
    raises while importing its forward-mode decompositions), the worker starts again without it, so
    the example shows what `python file.py` shows."""
    monkeypatch.setenv("PYTHONWARNINGS", "always")
    write_snippets(tmp_path, {"snippets/first_use.py": "import torch\nfrom torch.func import jvp\n\n"
                                                       "jvp(torch.sin, (torch.ones(2),), (torch.ones(2),))\n"})
    alone = subprocess.run([sys.executable, "snippets/first_use.py"], cwd=tmp_path, capture_output=True, text=True)
    assert "Warning" in alone.stderr  # what a reader sees
    run = run_all(tmp_path, cache=False, fresh=True).runs["snippets/first_use.py"]
    assert run.ok and run.output.count("Warning") == alone.stderr.count("Warning")
    monkeypatch.delenv("PYTHONWARNINGS")
    code = "from docexec.run.worker import preload; print(preload._warm_imports())"
    silent = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert silent.stdout == "True\n"  # under the default filters: the worker keeps them


KILLS_THE_WORKER = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"


@pytest.mark.slow
def test_after_two_killers_every_other_example_passes_on_the_interpreter_of_the_run(tmp_path):
    """Two examples that kill their worker, four that print the interpreter they run on: run again
    as often as a killer among them ends a worker, the four pass, on the worker's interpreter (the
    one ``make drift`` gives), and each killer is blamed alone."""
    python = tmp_path / "python"  # an interpreter of its own: it marks what runs under it
    python.write_text(f'#!/bin/sh\nRUN_ON=wrapper exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    write_snippets(tmp_path, {"snippets/k/kill.py": KILLS_THE_WORKER, "snippets/k/z_kill.py": KILLS_THE_WORKER,
                              **{f"snippets/k/ok_{n}.py": "import os\nprint(os.environ.get('RUN_ON'))\n"
                                 for n in "abcd"}})
    paths = sorted(str(p.relative_to(tmp_path)) for p in (tmp_path / "snippets/k").glob("*.py"))
    results = run_snippets(tmp_path, paths, jobs=2, python=str(python))
    for name in ("kill.py", "z_kill.py"):
        assert results[f"snippets/k/{name}"].failure.message.endswith("while it ran this example; it may end its "
                                                                     "parent process"), results[f"snippets/k/{name}"]
    for n in "abcd":
        result = results[f"snippets/k/ok_{n}.py"]
        assert result.ok and result.output == "wrapper\n", result


@pytest.mark.slow
def test_a_run_the_build_stops_is_not_run_again(tmp_path):
    """``stop_worker`` (a cancelled run: ``Runner.cancel``, a failed build) ends the worker: what it
    had not run is reported as not run, never started again in a worker the build cannot see."""
    import threading

    from docexec.run.execute import start_worker, stop_worker

    write_snippets(tmp_path, {f"snippets/s/{n}.py": f"import time\nopen({str(tmp_path / n)!r}, 'w').close()\n"
                              "time.sleep(3)\n" for n in "abc"})
    worker = start_worker(tmp_path)
    answered: list = []
    thread = threading.Thread(target=lambda: answered.append(
        run_snippets(tmp_path, [f"snippets/s/{n}.py" for n in "abc"], jobs=1, worker=worker)), daemon=True)
    thread.start()
    assert _wait_until(lambda: (tmp_path / "a").exists(), 120)
    stop_worker(worker)
    thread.join(60)
    time.sleep(1)
    assert not thread.is_alive() and not (tmp_path / "b").exists() and not (tmp_path / "c").exists()
    assert all(not result.ok for result in answered[0].values())
