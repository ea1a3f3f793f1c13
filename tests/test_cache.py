"""The run cache: reused only while everything a run depends on is unchanged."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from docexec.graphs import figures
from docexec.run import cache
from docexec.run.runner import Runner

from .conftest import ROOT, run_all, write_snippets

pytestmark = pytest.mark.slow


@pytest.fixture
def repo(tmp_path):
    write_snippets(tmp_path, {
        "snippets/c/_helper.py": "FACTOR = 3\n",
        "snippets/c/uses_helper.py": """
            import torch
            from _helper import FACTOR
            x = torch.tensor(2.0, requires_grad=True)
            y = x * FACTOR
            print(y.item())  # 6.0
            """,
        "snippets/c/plain.py": """
            print("plain")  # plain
            """,
    })
    first = run_all(tmp_path)
    assert sorted(first.executed) == ["snippets/c/plain.py", "snippets/c/uses_helper.py"]
    figures.sync(tmp_path, first.graphs(), set(first.runs))  # what `make fix` would commit
    return tmp_path


def rerun(root):
    return run_all(root)


def test_nothing_changed_nothing_runs_and_results_are_the_same(repo):
    results = rerun(repo)
    assert results.executed == []
    assert all(r.cached for r in results.runs.values())
    assert results.output("c/uses_helper.py") == "6.0" and results.problems() == []
    assert "MulBackward0" in results.runs["snippets/c/uses_helper.py"].graph.dot


def test_editing_one_snippet_runs_that_snippet_only(repo):
    path = repo / "snippets/c/plain.py"
    path.write_text(path.read_text().replace("plain", "edited"))
    results = rerun(repo)
    assert results.executed == ["snippets/c/plain.py"] and results.output("c/plain.py") == "edited"


def test_editing_a_helper_runs_exactly_the_snippets_that_import_it(repo):
    (repo / "snippets/c/_helper.py").write_text("FACTOR = 4\n")
    results = rerun(repo)
    assert results.executed == ["snippets/c/uses_helper.py"]
    assert [p.line for p in results.problems()] == [5]  # the claim 6.0 no longer holds


def test_another_torch_version_runs_everything(repo, monkeypatch):
    monkeypatch.setattr(cache.metadata, "version", lambda name: "9.9.9")
    cache.environment.cache_clear()
    try:
        assert sorted(rerun(repo).executed) == ["snippets/c/plain.py", "snippets/c/uses_helper.py"]
    finally:
        cache.environment.cache_clear()


@pytest.mark.parametrize("damage", ["", "{not json", '{"format": 1, "path": "snippets/c/plain.py"}',
                                    '{"format": 1, "path": "snippets/c/plain.py", "deps": {}, "result": {"x": 1}}'])
def test_a_damaged_entry_is_run_again_never_served(repo, damage):
    entries = list((repo / cache.CACHE_DIR / "runs").glob("*.json"))
    assert len(entries) == 2
    for entry in entries:
        entry.write_text(damage)
    results = rerun(repo)
    assert sorted(results.executed) == ["snippets/c/plain.py", "snippets/c/uses_helper.py"]
    assert results.problems() == []


def test_a_warm_build_imports_no_torch(site_copy):
    """A build that runs a snippet never imports torch itself (its workers do); with every snippet
    cached, a whole MkDocs build never imports torch nor starts a worker."""
    site = site_copy
    changed = sorted((site / "snippets").rglob("*.py"))[0]  # its cached run no longer applies
    changed.write_text(changed.read_text(encoding="utf-8") + "\n# one line more\n", encoding="utf-8")
    script = textwrap.dedent("""
        import sys
        from mkdocs.commands.build import build
        from mkdocs.config import load_config
        from docexec.host.build import runner_for
        build(load_config("mkdocs.yml", site_dir=sys.argv[1]))
        print("torch" in sys.modules, len(runner_for(".").executed))
        """)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    runs = [subprocess.run([sys.executable, "-c", script, str(site / f"out{i}")], cwd=site, env=env,
                           capture_output=True, text=True) for i in range(2)]
    assert [r.returncode for r in runs] == [0, 0], "\n".join(r.stderr[-2000:] for r in runs if r.returncode)
    cold, warm = (r.stdout.split() for r in runs)
    assert cold[0] == "False" and int(cold[1]) > 0  # the build process itself never imports torch
    assert warm == ["False", "0"]


def test_make_clean_empties_the_cache(tmp_path):
    shutil.copy2(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / ".cache/docexec/runs").mkdir(parents=True)
    (tmp_path / ".cache/docexec/runs/x.json").write_text("{}")
    subprocess.run(["make", "clean"], cwd=tmp_path, check=True, capture_output=True)
    assert not (tmp_path / ".cache").exists()


def test_a_helper_loaded_from_its_file_path_is_still_a_dependency(tmp_path):
    write_snippets(tmp_path, {
        "snippets/c/_loaded.py": "V = 1\n",
        "snippets/c/loads_by_path.py": """
            import importlib.util
            import sys
            from pathlib import Path
            spec = importlib.util.spec_from_file_location("loaded", Path(__file__).with_name("_loaded.py"))
            module = importlib.util.module_from_spec(spec)
            sys.modules["loaded"] = module
            spec.loader.exec_module(module)
            print(module.V)  # 1
            """,
    })
    assert rerun(tmp_path).runs["snippets/c/loads_by_path.py"].reads.deps == ("snippets/c/_loaded.py",)
    (tmp_path / "snippets/c/_loaded.py").write_text("V = 2\n")
    results = rerun(tmp_path)
    assert results.executed == ["snippets/c/loads_by_path.py"]
    assert results.output("c/loads_by_path.py") == "2"


def test_prestart_of_a_rebuild_reads_the_snippets_as_they_are_now(repo):
    """Under mkdocs serve, a rebuild's on_config (prestart) comes before its on_pre_build (reset)."""
    runner = Runner(repo)
    runner.start()
    assert runner.wait().executed == []
    path = repo / "snippets/c/plain.py"
    path.write_text(path.read_text().replace("plain", "edited"))
    runner.prestart()
    try:
        assert runner._workers.kept is not None  # the edit was seen: the worker started early
    finally:
        runner.start()  # uses (and ends) that worker
    assert runner.wait().executed == ["snippets/c/plain.py"]


def test_results_are_checked_and_kept_while_the_other_snippets_still_run(tmp_path):
    """The slow snippet ends only once the quick one's entry is in the cache, claims checked."""
    runs = tmp_path / cache.CACHE_DIR / "runs"
    write_snippets(tmp_path, {
        "snippets/q/quick.py": 'print("quick")  # quick\n',
        "snippets/q/slow.py": f"""
            import glob
            import json
            import time
            deadline = time.monotonic() + 20
            while not glob.glob({str(runs / "*.json")!r}) and time.monotonic() < deadline:
                time.sleep(0.01)
            entries = [json.load(open(p)) for p in glob.glob({str(runs / "*.json")!r})]
            print([(e["path"], e["result"]["claim_problems"]) for e in entries])  # [('snippets/q/quick.py', [])]
            """,
    })
    # (the slow snippet holds this test's temporary paths: its lines are longer than a snippet's may be)
    assert [p for p in run_all(tmp_path, jobs=2).problems() if not p.message.startswith("line is")] == []


def test_a_run_that_failed_in_a_helper_import_runs_again_once_the_helper_is_fixed(tmp_path):
    """A module whose import raised is not in sys.modules when the run ends, so it cannot be
    recorded as a dependency; such a failure must not be served from the cache after the fix."""
    write_snippets(tmp_path, {
        "snippets/h/_broken.py": "VALUE = undefined_name\n",
        "snippets/h/uses_broken.py": """
            from _broken import VALUE
            print(VALUE)  # 7
            """,
    })
    first = run_all(tmp_path)
    assert first.runs["snippets/h/uses_broken.py"].failure.error == "NameError"
    (tmp_path / "snippets/h/_broken.py").write_text("VALUE = 7\n")
    second = run_all(tmp_path)
    assert second.executed == ["snippets/h/uses_broken.py"]
    assert second.problems() == []


def test_a_helper_the_snippet_looked_for_and_did_not_find_runs_it_again_once_written(tmp_path):
    """A snippet that catches the ImportError of a helper not written yet ran without it; once the
    helper exists, the cached run no longer says what the snippet does."""
    write_snippets(tmp_path, {
        "snippets/m/optional.py": """
            try:
                from _later import GREETING
            except ImportError:
                GREETING = "no helper"
            print(GREETING)  # no helper
            """,
        "snippets/m/other.py": 'print("other")  # other\n',
    })
    first = run_all(tmp_path)
    assert first.problems() == []
    assert "snippets/m/_later.py" in first.runs["snippets/m/optional.py"].reads.absent
    assert rerun(tmp_path).executed == []  # nothing written yet: served from the cache
    (tmp_path / "snippets/m/_later.py").write_text('GREETING = "hello"\n')
    second = rerun(tmp_path)
    assert second.executed == ["snippets/m/optional.py"]
    assert second.runs["snippets/m/optional.py"].output.strip() == "hello"
    assert second.problems()  # its claim still says "no helper"


def test_the_tally_tells_run_cached_and_not_run_apart(repo):
    """What the build's log line reports: a snippet with bad options is neither run nor cached."""
    (repo / "snippets/c/bad_options.py").write_text('# docexec: timeout=abc\nprint("x")  # x\n')
    results = rerun(repo)
    assert results.tally() == {"run": 0, "cached": 2, "not_run": 1}
    (repo / "snippets/c/plain.py").write_text('print("plain!")  # plain!\n')
    assert rerun(repo).tally() == {"run": 1, "cached": 1, "not_run": 1}


def test_a_package_whose_init_raised_and_was_caught_is_a_dependency(tmp_path):
    write_snippets(tmp_path, {
        "snippets/m/_pkg/__init__.py": 'raise RuntimeError("broken package")\n',
        "snippets/m/guarded_pkg.py": """
            try:
                import _pkg
                print("found")
            except RuntimeError:
                print("broken")  # broken
            """,
    })
    assert run_all(tmp_path).runs["snippets/m/guarded_pkg.py"].ok
    (tmp_path / "snippets/m/_pkg/__init__.py").write_text("OK = 1\n")
    second = rerun(tmp_path)
    assert second.executed == ["snippets/m/guarded_pkg.py"]
    assert second.runs["snippets/m/guarded_pkg.py"].output.strip() == "found"


def test_a_helper_whose_import_raised_and_was_caught_is_a_dependency(tmp_path):
    """The run went on without the helper (the snippet caught the error); fixing the helper changes
    what the snippet prints, so the cached run must not be served."""
    write_snippets(tmp_path, {
        "snippets/m/_flaky.py": "VALUE = undefined_name\n",
        "snippets/m/guarded.py": """
            try:
                from _flaky import VALUE
            except NameError:
                VALUE = "broken"
            print(VALUE)  # broken
            """,
    })
    first = run_all(tmp_path)
    assert first.problems() == []
    (tmp_path / "snippets/m/_flaky.py").write_text('VALUE = "fixed"\n')
    second = rerun(tmp_path)
    assert second.executed == ["snippets/m/guarded.py"]
    assert "fixed" in second.runs["snippets/m/guarded.py"].output


def test_a_full_run_drops_the_entries_it_did_not_use_and_a_partial_run_drops_none(repo):
    runs = repo / cache.CACHE_DIR / "runs"
    before = {p.name for p in runs.glob("*.json")}
    assert len(before) == 2
    old_tmp, young_tmp = runs / ".entry-old.tmp", runs / ".entry-young.tmp"
    old_tmp.write_text("{")
    young_tmp.write_text("{")
    os.utime(old_tmp, (0, 0))  # left by a process that died long ago
    path = repo / "snippets/c/plain.py"
    path.write_text(path.read_text().replace("plain", "edited"))
    run_all(repo, paths=["snippets/c/plain.py"])  # one snippet only: nothing is dropped
    assert len({p.name for p in runs.glob("*.json")}) == 3
    assert rerun(repo).executed == []
    after = {p.name for p in runs.glob("*.json")}
    assert len(after) == 2 and len(after & before) == 1  # the old entry of plain.py is gone
    assert young_tmp.exists() and not old_tmp.exists()


def test_a_full_run_of_another_folder_drops_none_of_this_folders_entries(repo):
    """Runs of two folders share the root's cache (the tests' fixtures and the site's snippets)."""
    runs = repo / cache.CACHE_DIR / "runs"
    before = {p.name for p in runs.glob("*.json")}
    write_snippets(repo, {"other/o/x.py": 'print("x")  # x\n'})
    run_all(repo, "other")
    after = {p.name for p in runs.glob("*.json")}
    assert before < after and len(after) == len(before) + 1
    assert rerun(repo).executed == []


def test_a_write_that_fails_names_the_file_and_leaves_it_and_no_temporary_file(tmp_path):
    """A full disk (here: a file-size limit) fails the write of the temporary file; the error
    names the file being replaced, which keeps its old bytes."""
    target = tmp_path / "page.json"
    target.write_text("old", encoding="utf-8")
    script = ("import resource, signal, sys\nfrom docexec.core.files import write_atomically\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\nresource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))\n"
              "try:\n    write_atomically(sys.argv[1], 'x' * 1000)\n"
              "except OSError as error:\n    print(error.filename, error.strerror)\n")
    proc = subprocess.run([sys.executable, "-c", script, str(target)], capture_output=True, text=True, cwd=ROOT)
    assert proc.stdout.strip() == f"{target} File too large", proc.stderr
    assert target.read_text(encoding="utf-8") == "old" and [p.name for p in tmp_path.iterdir()] == ["page.json"]


def test_a_file_where_the_folder_should_be_is_the_file_named(tmp_path):
    from docexec.core.files import write_atomically

    (tmp_path / "notebooks").write_text("in the way", encoding="utf-8")
    with pytest.raises(FileExistsError) as caught:
        write_atomically(tmp_path / "notebooks/a.ipynb", "{}")
    assert caught.value.filename == str(tmp_path / "notebooks")


def test_an_entry_whose_result_was_edited_by_hand_is_run_again_never_served(repo):
    """A digit changed in a cached output (the claim beside it would no longer hold) no longer
    matches the digest stored with the entry: the snippet runs again and the page shows its output."""
    entry = next(p for p in (repo / cache.CACHE_DIR / "runs").glob("*.json")
                 if json.loads(p.read_text())["path"] == "snippets/c/uses_helper.py")
    entry.write_text(entry.read_text().replace("6.0", "7.0"))
    assert "7.0" in entry.read_text()
    results = rerun(repo)
    assert results.executed == ["snippets/c/uses_helper.py"] and results.output("c/uses_helper.py") == "6.0"


@pytest.mark.parametrize("edit", ["deps", "key"])
def test_an_entry_whose_dependencies_were_edited_or_that_was_copied_under_another_key_runs_again(repo, edit):
    """The digest covers what the run read and the key too: emptying ``deps`` (so that an edited
    helper would go unseen) or copying an entry onto the key of an edited snippet runs it again."""
    runs = repo / cache.CACHE_DIR / "runs"
    entry = next(p for p in runs.glob("*.json") if json.loads(p.read_text())["path"] == "snippets/c/uses_helper.py")
    if edit == "deps":
        data = json.loads(entry.read_text())
        data["deps"] = {}
        entry.write_text(json.dumps(data))
        (repo / "snippets/c/_helper.py").write_text("FACTOR = 4\n")
        expected = "8.0"
    else:
        old = entry.read_text()
        snippet = repo / "snippets/c/uses_helper.py"
        snippet.write_text(snippet.read_text() + "# edited\n")
        found = run_all(repo)  # the edited snippet's entry, under its new key (the old one is dropped)
        (new,) = [p for p in runs.glob("*.json") if json.loads(p.read_text())["path"] == "snippets/c/uses_helper.py"]
        assert new != entry
        new.write_text(old)  # the old entry, under the new key
        expected = found.output("c/uses_helper.py")
    results = rerun(repo)
    assert results.executed == ["snippets/c/uses_helper.py"] and results.output("c/uses_helper.py") == expected


def test_the_workflow_that_publishes_the_site_builds_with_the_run_cache_off():
    """The tests fill the run cache on the same runner: the published site runs every example again."""
    import yaml

    workflow = yaml.safe_load((ROOT / ".github/workflows/pages.yml").read_text(encoding="utf-8"))
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    (build,) = [step for step in steps if step.get("run") == "make build"]
    assert build["env"]["DOCEXEC_CACHE"] == "0"
