"""Build-time benchmark (`make bench`): whole-process timings of `mkdocs build`, printed as ratios.

Every figure comes from whole commands, each in a fresh process, run on the same machine in a
temporary copy of the site (nothing here touches the repository). The builds are made in rounds:
each round makes every kind of build, one right after the other (warm builds several times, in
A B B A order; see ``measure``), and each ratio is computed within a round; the figure printed
is the median over the rounds. A shared virtual machine can
change speed by a third from one minute to the next; within a round both sides of a ratio see
about the same machine. Builds without execution use a second copy of the site, with caches of
its own.

* floor   = `python -c "import torch"` + a build with execution switched off (DOCEXEC_EXECUTE=0),
            caches empty (same pages: the notebooks are made, without outputs)
* cold    = a build with an empty cache                      -> cold / floor          (target <= 1.3)
* warm    = a build with nothing changed                     -> warm / no-exec build  (target <= 1.15)
* prose   = a build after editing a page's prose             -> prose / no-exec build
* snippet = a build after editing one snippet                -> snippet / no-exec build
* scaling: a generated site with 10 times the snippets on the same pages (each chapter page
  holds its text 10 times, each copy with copies of its snippets; see ``scaled_copy``); the added
  cost per added snippet in ms, cold and warm (targets: cold <= 20 ms beyond the snippet's own run
  time; warm < 2 ms). Each is given twice: the whole build's added time, which includes rendering
  the copied text, and the added time beyond the same site's build without execution, i.e. what
  running a snippet, checking its claims, drawing its figure and showing its output add. The own
  run time (the `exec` of the snippet's code, from the run results) is shared over the cores and
  taken off the cold figure. The same two differences are printed once more from the fastest
  build of each kind over all rounds.

Usage: python tools/bench.py [--repeat N] [--warm-groups N] [--skip-scaling]
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


def measure(site: Path, plain: Path, repeat: int, edits: bool = True, warm_groups: int = 1) -> list[dict[str, float]]:
    """Seconds of each kind of build, one dict per round.

    ``site`` is built with execution and ``plain``, a copy of it, without: each keeps its own caches,
    so that neither evicts the other's (mkdocs-jupyter drops cache entries a build did not use).
    The builds being compared run one after the other within each round, so that a change in the
    machine's speed between rounds (common on a shared virtual machine) affects both sides of a
    ratio alike; every other round runs them in the opposite order, so that a steady drift does
    not always favour the same side. The warm builds are made in ``warm_groups`` groups of four,
    A B B A (with execution, without, without, with; the other way round in every other round),
    and each side's time in the round is its mean: a linear drift within a group cancels out.
    """
    page = sorted((site / "docs").glob("[0-9][0-9]-*.md"))[0]
    snippet = sorted((site / "snippets").rglob("*.py"))[0]
    rounds = []
    for number in range(repeat):
        flip = number % 2 == 1
        times = {"torch": timed([sys.executable, "-c", "import torch"], site)}
        clear_cache(plain)
        clear_cache(site)
        for kind in (["cold", "no_exec_cold"] if flip else ["no_exec_cold", "cold"]):
            # no_exec_cold: the same pages, notebooks without outputs
            times[kind] = build(site) if kind == "cold" else build(plain, execute=False)
        times["own"] = run_seconds(site)  # not a build: the snippets' own run time, summed
        warm, no_exec = [], []
        for _ in range(warm_groups):
            for kind in ("BAAB" if flip else "ABBA"):
                (warm if kind == "A" else no_exec).append(build(site) if kind == "A" else build(plain, execute=False))
        times["warm"], times["no_exec"] = statistics.fmean(warm), statistics.fmean(no_exec)
        times["warm_fastest"], times["no_exec_fastest"] = min(warm), min(no_exec)
        if edits:
            with open(page, "a", encoding="utf-8") as handle:
                handle.write(f"\nAn edited sentence, number {number}.\n")
            times["prose"] = build(site)
            with open(snippet, "a", encoding="utf-8") as handle:
                handle.write(f"# an edited comment, number {number}\n")
            times["snippet"] = build(site)
        print(f"  round {number + 1} (s): " + ", ".join(f"{name} {t:.2f}" for name, t in times.items()), flush=True)
        rounds.append(times)
    return rounds


def ratios(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Median over the rounds of each round's ratios (see the module's docstring)."""
    each = each_round(rounds)
    return {name: median(values) for name, values in each.items() if values}


def each_round(rounds: list[dict[str, float]]) -> dict[str, list[float]]:
    """Each round's ratios, by measure."""
    return {
        "cold": [r["cold"] / (r["torch"] + r["no_exec_cold"]) for r in rounds],
        "warm": [r["warm"] / r["no_exec"] for r in rounds],
        "prose": [r["prose"] / r["no_exec"] for r in rounds if "prose" in r],
        "snippet": [r["snippet"] / r["no_exec"] for r in rounds if "snippet" in r],
    }


def seconds(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Median seconds of each kind of build over the rounds."""
    return {name: median([r[name] for r in rounds]) for name in rounds[0]}


def run_seconds(site: Path) -> float:
    """Sum of the snippets' own run times (seconds), from the cache entries of the last cold build."""
    total = 0.0
    for entry in (site / ".cache" / "docexec" / "runs").glob("*.json"):
        total += json.loads(entry.read_text(encoding="utf-8"))["result"]["own_seconds"]
    return total


def scaled_copy(site: Path, target: Path, factor: int) -> int:
    """A site with ``factor`` times the snippets, on the same pages; returns the snippet count.

    Each chapter page gets ``factor - 1`` copies of its text appended, each copy including copies
    of the chapter's snippets (``snippets/<chapter>-<n>/``) and titled as a section of its own.
    The pages, the navigation and the chapter notebooks stay as many as before, so what grows is
    what grows with each snippet (its run, claims, figure, output block, notebook cells and search
    text), not what each page costs.
    """
    copy_site(target)
    for page in sorted((target / "docs").glob("[0-9][0-9]-*.md")):
        text = page.read_text(encoding="utf-8")
        copies = []
        for copy in range(1, factor):
            body = text
            for chapter in sorted(set(re.findall(r'--8<-- "([\w-]+)/', text))):
                shutil.copytree(site / "snippets" / chapter, target / "snippets" / f"{chapter}-{copy}",
                                dirs_exist_ok=True)
                body = body.replace(f'--8<-- "{chapter}/', f'--8<-- "{chapter}-{copy}/')
            copies.append(re.sub(r"^# (.+)$", rf"## \1 (copy {copy})", body, count=1, flags=re.M))
        page.write_text("\n\n".join([text.rstrip("\n")] + copies) + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "docexec", "fix"], cwd=target, env=ENV, capture_output=True, check=True)
    return len(list((target / "snippets").rglob("*.py")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds (the median over them is reported)")
    parser.add_argument("--warm-groups", type=int, default=2,
                        help="groups of four warm builds (A B B A) per round; each side's mean is used")
    parser.add_argument("--skip-scaling", action="store_true", help="leave out the 10x site")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(f"machine: {platform.machine()}, {cores} cores, Python {platform.python_version()}; "
          f"{args.repeat} rounds")
    with tempfile.TemporaryDirectory(prefix="docexec-bench-") as temp:
        base, plain = Path(temp) / "site", Path(temp) / "plain"
        copy_site(base)
        copy_site(plain)
        small = measure(base, plain, args.repeat, warm_groups=args.warm_groups)
        one, ratio, rounds = seconds(small), ratios(small), each_round(small)
        print(f"seconds (medians): import torch {one['torch']:.2f}, build without execution {one['no_exec_cold']:.2f} "
              f"(empty caches) and {one['no_exec']:.2f} (warm), "
              f"cold {one['cold']:.2f}, warm {one['warm']:.2f}, after a prose edit {one['prose']:.2f}, "
              f"after a snippet edit {one['snippet']:.2f}")
        print("ratios (median over the rounds of each round's ratio; then each round's):")

        def show(name: str) -> str:
            return f"{ratio[name]:.2f}   (" + ", ".join(f"{value:.2f}" for value in rounds[name]) + ")"

        print(f"cold / floor (import torch + build without execution): {show('cold')}   target <= 1.30")
        print(f"warm / build without execution:                        {show('warm')}   target <= 1.15")
        print(f"after a prose edit / build without execution:          {show('prose')}")
        print(f"after a snippet edit / build without execution:        {show('snippet')}")
        if args.skip_scaling:
            return
        count_one = len(list((base / "snippets").rglob("*.py")))
        big, big_plain = Path(temp) / "big", Path(temp) / "big-plain"
        count_big = scaled_copy(base, big, 10)
        shutil.copytree(big, big_plain, ignore=shutil.ignore_patterns(".cache"))
        large = measure(big, big_plain, args.repeat, edits=False, warm_groups=args.warm_groups)
        many = seconds(large)
        added = count_big - count_one
        # The small site's side of each difference is its median: spread over the added snippets,
        # its own noise is small next to the big site's, which is paired within each round.
        cold_extra = median([r["cold"] - r["no_exec_cold"] for r in small])
        warm_extra = median([r["warm"] - r["no_exec"] for r in small])

        def own_each(r: dict[str, float]) -> float:  # ms per added snippet, shared over the cores
            return (r["own"] - one["own"]) / cores / added * 1000

        cold_rounds = [((r["cold"] - r["no_exec_cold"]) - cold_extra) / added * 1000 - own_each(r) for r in large]
        warm_rounds = [((r["warm"] - r["no_exec"]) - warm_extra) / added * 1000 for r in large]
        cold_exec, warm_exec = median(cold_rounds), median(warm_rounds)
        cold_all = (many["cold"] - one["cold"]) / added * 1000 - own_each(many)
        warm_all = (many["warm"] - one["warm"]) / added * 1000
        print(f"scaling: {count_one} -> {count_big} snippets; cold {many['cold']:.2f} s, warm {many['warm']:.2f} s, "
              f"without execution {many['no_exec_cold']:.2f} s (empty caches) and {many['no_exec']:.2f} s (warm); "
              f"own run time per added snippet over {cores} cores {own_each(many):.1f} ms")
        print(f"added cold cost per snippet, beyond its own run time: {cold_exec:.1f} ms "
              f"({', '.join(f'{v:.1f}' for v in cold_rounds)}) beyond the build without execution, "
              f"{cold_all:.1f} ms in all   (target <= 20)")
        print(f"added warm cost per snippet: {warm_exec:.1f} ms ({', '.join(f'{v:.1f}' for v in warm_rounds)}) "
              f"beyond the build without execution, {warm_all:.1f} ms in all   (target < 2)")

        # The same differences from the fastest build of each kind over all rounds: on a machine
        # whose speed jumps between states, the fastest runs of both sides come from its fast state.
        def fastest(rounds: list[dict[str, float]], name: str) -> float:
            return min(r[name] for r in rounds)

        cold_fast = ((fastest(large, "cold") - fastest(large, "no_exec_cold"))
                     - (fastest(small, "cold") - fastest(small, "no_exec_cold"))) / added * 1000 - own_each(many)
        warm_fast = ((fastest(large, "warm_fastest") - fastest(large, "no_exec_fastest"))
                     - (fastest(small, "warm_fastest") - fastest(small, "no_exec_fastest"))) / added * 1000
        print(f"from the fastest build of each kind instead: cold {cold_fast:.1f} ms, warm {warm_fast:.1f} ms per "
              f"added snippet, beyond the build without execution (cold also beyond its own run time)")


if __name__ == "__main__":
    main()
