"""Build-time benchmark (`make bench`): whole-process timings of `mkdocs build`, printed as ratios.

Every figure is the median of several runs of a whole command in a fresh process, measured in one
go on the same machine, in a temporary copy of the site (nothing here touches the repository):

* floor   = `python -c "import torch"` + a build with execution switched off (DOCEXEC_EXECUTE=0),
            caches empty (same pages: the notebooks are made, without outputs)
* cold    = a build with an empty cache                      -> cold / floor          (target <= 1.3)
* warm    = a build with nothing changed                     -> warm / no-exec build  (target <= 1.15)
* prose   = a build after editing a page's prose             -> prose / no-exec build
* snippet = a build after editing one snippet                -> snippet / no-exec build
* scaling: a generated site with 10 times the snippets (each chapter copied 9 times, with its
  snippets); the added cost per added snippet in ms, cold and warm (targets: cold <= 20 ms beyond
  the snippet's own run time; warm < 2 ms). Each is given twice: the whole build's added time,
  which includes rendering the 9 copies of every page and notebook, and the added time beyond
  the same site's build without execution, i.e. what running a snippet, checking its claims,
  drawing its figure and showing its output add. The own run time (the `exec` of the snippet's
  code, from the run results) is shared over the cores and taken off the cold figure.

Usage: python tools/bench.py [--repeat N] [--skip-scaling]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SITE_PARTS = ["docs", "snippets", "diagrams", "hooks", "includes", "docexec", "mkdocs.yml"]
ENV = dict(os.environ, NO_MKDOCS_2_WARNING="1", SOURCE_DATE_EPOCH="0")


def copy_site(target: Path) -> None:
    for part in SITE_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target / part)


def timed(command: list[str], cwd: Path, env: dict | None = None) -> float:
    started = time.perf_counter()
    proc = subprocess.run(command, cwd=cwd, env=env or ENV, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed in {cwd}:\n{proc.stderr[-3000:]}")
    return elapsed


def build(site: Path, execute: bool = True) -> float:
    env = dict(ENV, DOCEXEC_EXECUTE="1" if execute else "0")
    return timed([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site / "out")], site, env)


def clear_cache(site: Path) -> None:
    shutil.rmtree(site / ".cache", ignore_errors=True)


def median(values: list[float]) -> float:
    return statistics.median(values)


def measure(site: Path, repeat: int) -> dict[str, float]:
    """Median seconds of each kind of build of ``site``."""
    torch = [timed([sys.executable, "-c", "import torch"], site) for _ in range(repeat)]
    no_exec_cold = []
    for _ in range(repeat):  # the same pages (notebooks without outputs), every cache empty
        clear_cache(site)
        no_exec_cold.append(build(site, execute=False))
    no_exec = [build(site, execute=False) for _ in range(repeat)]
    cold = []
    for _ in range(repeat):
        clear_cache(site)
        cold.append(build(site))
    warm = [build(site) for _ in range(repeat)]
    page = sorted((site / "docs").glob("[0-9][0-9]-*.md"))[0]
    snippet = sorted((site / "snippets").rglob("*.py"))[0]
    prose, edited = [], []
    for run in range(repeat):
        with open(page, "a", encoding="utf-8") as handle:
            handle.write(f"\nAn edited sentence, number {run}.\n")
        prose.append(build(site))
        with open(snippet, "a", encoding="utf-8") as handle:
            handle.write(f"# an edited comment, number {run}\n")
        edited.append(build(site))
    runs = {"torch": torch, "no_exec_cold": no_exec_cold, "no_exec": no_exec, "cold": cold, "warm": warm,
            "prose": prose, "snippet": edited}
    print("  runs (s): " + "; ".join(f"{name} " + " ".join(f"{t:.2f}" for t in times) for name, times in runs.items()),
          flush=True)
    return {name: median(times) for name, times in runs.items()}


def run_seconds(site: Path) -> float:
    """Sum of the snippets' own run times (seconds), from the cache entries of the last cold build."""
    total = 0.0
    for entry in (site / ".cache" / "docexec" / "runs").glob("*.json"):
        total += json.loads(entry.read_text(encoding="utf-8"))["result"]["own_seconds"]
    return total


def scaled_copy(site: Path, target: Path, factor: int) -> int:
    """A site with ``factor`` copies of every chapter and its snippets; returns the snippet count."""
    copy_site(target)
    config = (target / "mkdocs.yml").read_text(encoding="utf-8")
    (target / "mkdocs.yml").write_text(config.split("\nnav:")[0] + "\n", encoding="utf-8")  # automatic nav
    for copy in range(1, factor):
        for page in sorted((site / "docs").glob("[0-9][0-9]-*.md")):
            text = page.read_text(encoding="utf-8")
            for chapter in {m for m in re.findall(r'--8<-- "([\w-]+)/', text)}:
                shutil.copytree(site / "snippets" / chapter, target / "snippets" / f"{chapter}-{copy}",
                                dirs_exist_ok=True)
                text = text.replace(f'--8<-- "{chapter}/', f'--8<-- "{chapter}-{copy}/')
            text = re.sub(r"\]\((?!https?:)[^)]*\.md(#[^)]*)?\)", "]", text)  # no links between copies
            # A title of its own: every copy's notebook differs, as a real chapter's would, so that
            # mkdocs-jupyter's cache (keyed on the notebook's bytes) cannot serve one copy for another.
            text = re.sub(r"^# (.+)$", rf"# \1 (copy {copy})", text, count=1, flags=re.M)
            (target / "docs" / f"{page.stem}-{copy}.md").write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "docexec", "fix"], cwd=target, env=ENV, capture_output=True, check=True)
    return len(list((target / "snippets").rglob("*.py")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median reported)")
    parser.add_argument("--skip-scaling", action="store_true", help="leave out the 10x site")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}; "
          f"median of {args.repeat} runs each")
    with tempfile.TemporaryDirectory(prefix="docexec-bench-") as temp:
        base = Path(temp) / "site"
        copy_site(base)
        one = measure(base, args.repeat)
        floor = one["torch"] + one["no_exec_cold"]
        print(f"seconds: import torch {one['torch']:.2f}, build without execution {one['no_exec_cold']:.2f} "
              f"(empty caches) and {one['no_exec']:.2f} (warm), "
              f"cold {one['cold']:.2f}, warm {one['warm']:.2f}, after a prose edit {one['prose']:.2f}, "
              f"after a snippet edit {one['snippet']:.2f}")
        print(f"cold / floor (import torch + build without execution): {one['cold'] / floor:.2f}   (target <= 1.30)")
        print(f"warm / build without execution:                        {one['warm'] / one['no_exec']:.2f}   "
              "(target <= 1.15)")
        print(f"after a prose edit / build without execution:          {one['prose'] / one['no_exec']:.2f}")
        print(f"after a snippet edit / build without execution:        {one['snippet'] / one['no_exec']:.2f}")
        if args.skip_scaling:
            return
        clear_cache(base)
        build(base)
        own_one = run_seconds(base)
        count_one = len(list((base / "snippets").rglob("*.py")))
        big = Path(temp) / "big"
        count_big = scaled_copy(base, big, 10)
        many = measure(big, args.repeat)
        clear_cache(big)
        build(big)
        own_big = run_seconds(big)
        added = count_big - count_one
        own = (own_big - own_one) / cores
        cold_all = (many["cold"] - one["cold"]) / added * 1000
        cold_exec = ((many["cold"] - many["no_exec_cold"]) - (one["cold"] - one["no_exec_cold"])) / added * 1000
        own_each = own / added * 1000
        warm_all = (many["warm"] - one["warm"]) / added * 1000
        warm_exec = ((many["warm"] - many["no_exec"]) - (one["warm"] - one["no_exec"])) / added * 1000
        print(f"scaling: {count_one} -> {count_big} snippets; cold {many['cold']:.2f} s, warm {many['warm']:.2f} s, "
              f"without execution {many['no_exec_cold']:.2f} s (empty caches) and {many['no_exec']:.2f} s (warm); "
              f"own run time per added snippet over {cores} cores {own_each:.1f} ms")
        print(f"added cold cost per snippet, beyond its own run time: {cold_exec - own_each:.1f} ms "
              f"beyond the build without execution, {cold_all - own_each:.1f} ms in all   (target <= 20)")
        print(f"added warm cost per snippet: {warm_exec:.1f} ms beyond the build without execution, "
              f"{warm_all:.1f} ms in all   (target < 2)")


if __name__ == "__main__":
    main()
