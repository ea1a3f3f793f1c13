"""The benchmark's own logic (tools/bench.py and its bench_*.py parts), without timing anything:
the sites it compares the project with, and how it turns each round's seconds into ratios and
verdicts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench():
    """tools/bench.py as a module (tools/ is not a package)."""
    sys.path.insert(0, str(ROOT / "tools"))  # as when run as a script: its sibling modules import
    spec = importlib.util.spec_from_file_location("bench", ROOT / "tools" / "bench.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules["bench"]
    for part in ("bench_sites", "bench_serve", "bench_report", "recording_cost", "printing_cost"):
        sys.modules.pop(part, None)
    sys.path.remove(str(ROOT / "tools"))


@pytest.fixture(scope="module")
def bench_sites(bench):
    """tools/bench_sites.py, which tools/bench.py imported."""
    return sys.modules["bench_sites"]


def names(items: list) -> list[str]:
    return [item if isinstance(item, str) else next(iter(item)) for item in items]


def test_markdown_exec_site_executes_every_example_and_base_runs_nothing(bench, bench_sites, tmp_path: Path):
    bench.copy_site(tmp_path / "site")
    sites = bench.make_sites(tmp_path / "site", "1x", sys.executable)
    examples = len(list((ROOT / "snippets").rglob("*.py")))
    assert sites.examples == examples
    pages = "".join(page.read_text(encoding="utf-8") for page in (sites.mdexec.folder / "docs").rglob("*.md"))
    assert pages.count(f"```python {bench_sites.EXEC_OPTIONS}") == examples
    assert '--8<-- "graph.py:to_dot"' in pages  # shown by the project, not run: its fence is left alone
    for side, plugins in ((sites.base, ["search", "redirects"]),
                          (sites.mdexec, ["search", "redirects", "markdown-exec"])):
        config = yaml.safe_load((side.folder / "mkdocs.yml").read_text(encoding="utf-8"))
        assert "hooks" not in config and config["strict"] is False
        assert names(config["plugins"]) == plugins
        extensions = names(config["markdown_extensions"])
        assert "docexec.host.markdown_ext" not in extensions and "pymdownx.snippets" in extensions
        assert not list(side.folder.rglob("*.pth"))
    assert sites.example == Path("snippets/computational-graph/opt_in.py")
    assert sites.url == "/01-computational-graph/"


def test_fence_marked_show_or_naming_no_example_is_not_executed(bench_sites, tmp_path: Path):
    (tmp_path / "snippets" / "chapter").mkdir(parents=True)
    for name in ("run.py", "_helper.py"):
        (tmp_path / "snippets" / "chapter" / name).write_text("print(1)  # 1\n", encoding="utf-8")
    page = "\n".join([
        "```python", '--8<-- "chapter/run.py"', "```",
        "<!-- docexec: show -->", "```python", '--8<-- "chapter/run.py"', "```",
        "```python", '--8<-- "chapter/_helper.py"', "```",
        "    ```python", '    --8<-- "chapter/run.py"', "    ```",
        "```text", '--8<-- "chapter/run.py"', "```",
    ])
    text, count = bench_sites.exec_fences(tmp_path, page)
    assert count == 2
    assert text.split("\n")[0] == f"```python {bench_sites.EXEC_OPTIONS}"
    assert text.split("\n")[10] == f"    ```python {bench_sites.EXEC_OPTIONS}"
    assert text.split("\n")[4] == text.split("\n")[7] == "```python"


def test_ratios_are_taken_within_each_round_and_checked_against_targets(bench):
    # The ratio of the sides' median seconds (2.9 / 2.0) would miss the cold target; the median
    # of each round's own ratio (0.55, 0.70, 1.45) passes it.
    rounds = []
    for number, (project, mdexec, base) in enumerate([(1.1, 2.0, 0.9), (2.1, 3.0, 2.6), (2.9, 2.0, 2.0)]):
        rnd = bench.Round(number)
        rnd.seconds.update({"1x project cold": project, "1x markdown-exec build": mdexec, "1x BASE build": base,
                            "serve project example": project, "serve markdown-exec example": mdexec,
                            "serve BASE example": base})
        rnd.cpu.update({"1x project cold": 2 * project, "1x markdown-exec build": mdexec, "1x BASE build": base})
        rnd.seconds.update({"1x project one core": 2 * project, "1x markdown-exec one core": mdexec})
        rounds.append(rnd)
    measures = {m.label: m for m in bench.measures({"1x": 123})}
    cold = bench.evaluate(measures["cold, 1x (123 examples)"], rounds)
    assert cold.seconds == {"project": 2.1, "markdown-exec": 2.0, "BASE": 2.0}
    assert [round(value, 2) for value in cold.each["project / markdown-exec"]] == [0.55, 0.7, 1.45]
    assert [(check.other, round(value, 2), passed) for check, value, passed in cold.results] == [
        ("markdown-exec", 0.7, True)]
    cpu = bench.evaluate(measures["cold CPU seconds, 1x"], rounds)  # the same builds' CPU seconds
    assert [(round(value, 2), passed) for _, value, passed in cpu.results] == [(1.4, False)]
    serve = bench.evaluate(measures["one example edited under serve, write to reload"], rounds)
    # the project's median, 2.1 s, misses 1.0 s
    assert [(check.kind, round(value, 2), passed) for check, value, passed in serve.results] == [
        ("seconds", 2.1, False)]
    assert bench.evaluate(measures["warm, 1x"], rounds) is None  # no round measured it
    one_core = bench.evaluate(measures["cold on one core, 1x"], rounds)  # the builds cold_builds(one_core=True) names
    assert [(round(value, 2), passed) for _, value, passed in one_core.results] == [(1.4, False)]


def test_the_peak_memory_of_the_largest_cold_build_is_checked(bench, capsys):
    rounds = [bench.Round(number, peaks={"1x project cold": 400.0, "10x project cold": peak})
              for number, peak in enumerate([300.0, 320.0, 310.0])]
    bench.print_memory(rounds, ["1x", "10x"])
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == "peak memory of a cold 10x build: 310 MiB; target <= 316 MiB: PASS"


def test_the_recording_cost_runs_exactly_the_examples_that_ask_for_a_recorded_figure(bench):
    from recording_cost import recorded_examples

    from docexec.source.snippets import discover, read_source

    asked = recorded_examples(ROOT)
    assert len(asked) >= 10 and all(given["figure"] not in ("", "none") for given in asked.values())
    others = set(discover(ROOT)) - set(asked)
    unasked = [path for path in others if "figure=" in read_source(ROOT / path)]
    assert others and unasked and all("figure=none" in read_source(ROOT / path) for path in unasked)


def test_the_printing_cost_times_the_same_loop_under_the_engine_and_under_python(bench, tmp_path):
    """Both sides time their own loop of prints; the example written for the engine is removed."""
    from printing_cost import printing_cost

    (tmp_path / "snippets").mkdir()
    cost = printing_cost(tmp_path, repeat=1)
    assert 0 < cost.python_us < cost.engine_us < 1000
    assert list((tmp_path / "snippets").iterdir()) == []


def test_the_scaled_site_names_each_quoted_example_with_its_copys_folder(bench_sites, tmp_path):
    """A page holding ten copies of an example: a quote naming it bare would name all ten (the build
    refuses that), so the original names its chapter folder and each copy its copy's folder."""
    (tmp_path / "snippets/ch").mkdir(parents=True)
    (tmp_path / "snippets/ch/ex.py").write_text("x = 1\n")
    text = 'x is {{ ex: x }}, {{ ch/ex: x + 1 }} and {{ gone: y }}.\n\n```python\n--8<-- "ch/ex.py"\n```\n'
    assert bench_sites.qualified_quotes(text, ["ch"], tmp_path, "") == text.replace(
        "{{ ex:", "{{ ch/ex:")
    assert bench_sites.qualified_quotes(text, ["ch"], tmp_path, "-2").startswith(
        "x is {{ ch-2/ex: x }}, {{ ch-2/ex: x + 1 }} and {{ gone: y }}.")
