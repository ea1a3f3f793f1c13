"""The figures of ``make bench``'s rounds (tools/bench.py), and the table made of them: medians,
ratios within each round, targets and verdicts, memory, CPU and the machine."""

from __future__ import annotations

import os
import platform
import re
import statistics
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from bench_sites import MARKDOWN_EXEC, Run
from printing_cost import PrintingCost
from recording_cost import RecordingCost


@dataclass
class Round:
    """One round's figures by name, such as ``1x project cold``: wall-clock seconds, and for builds
    their CPU seconds and peak memory (MiB)."""

    number: int
    seconds: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)
    peaks: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    recording: RecordingCost | None = None
    printing: PrintingCost | None = None

    @property
    def flip(self) -> bool:
        """Whether this round runs the sides in the opposite order."""
        return self.number % 2 == 1

    def ordered(self, items: list) -> list:
        """``items`` in this round's order."""
        return items[::-1] if self.flip else items

    def record(self, name: str, results: list[Run]) -> None:
        """Keep the mean seconds and CPU seconds, and the highest peak memory, of builds of one kind."""
        self.seconds[name] = statistics.fmean(result.seconds for result in results)
        self.cpu[name] = statistics.fmean(result.cpu for result in results)
        self.peaks[name] = max(result.peak_mib for result in results)



# ---------------------------------------------------------------------------------------------
# Measures and the table


@dataclass(frozen=True)
class Check:
    """A target: the project's seconds at most ``limit`` times the other side's (``ratio``), or at
    most the other side's plus ``limit`` seconds (``extra``)."""

    other: str  # "markdown-exec" or "BASE"
    kind: str  # "ratio" or "extra"
    limit: float

    def text(self) -> str:
        """The target as written in the table."""
        return f"<= {self.limit} x {self.other}" if self.kind == "ratio" else f"<= {self.other} + {self.limit} s"


@dataclass(frozen=True)
class Measure:
    """A line of the table: the round figures (keys of ``Round.seconds``) of each side, and the
    targets."""

    label: str
    project: str
    mdexec: str | None
    base: str | None
    checks: tuple[Check, ...] = ()


def measures(examples: dict[str, int]) -> list[Measure]:
    """The table's lines, for the sizes measured (``examples``: examples by size label)."""
    rows = []
    for label, count in examples.items():
        warm = 1.2 if label == "1x" else 1.1
        rows += [
            Measure(f"cold, {label} ({count} examples)", f"{label} project cold", f"{label} markdown-exec build",
                    f"{label} BASE build", (Check("markdown-exec", "ratio", 1.0),)),
            Measure(f"warm, {label}", f"{label} project warm", f"{label} markdown-exec build", f"{label} BASE warm",
                    (Check("BASE", "ratio", warm),)),
            Measure(f"one example edited, rebuild, {label}", f"{label} project example edit",
                    f"{label} markdown-exec build", f"{label} BASE warm"),
            Measure(f"prose edited, rebuild, {label}", f"{label} project prose edit",
                    f"{label} markdown-exec build", f"{label} BASE warm"),
        ]
    rows += [
        Measure("one example edited under serve, write to reload", "serve project example",
                "serve markdown-exec example", "serve BASE example",
                (Check("markdown-exec", "ratio", 1.0), Check("BASE", "extra", 0.3))),
        Measure("prose edited under serve, write to reload", "serve project prose", None, "serve BASE prose",
                (Check("BASE", "ratio", 1.1),)),
    ]
    return rows


@dataclass
class Row:
    """A measure's medians over the rounds, each round's compared values, and its checks' results."""

    measure: Measure
    seconds: dict[str, float | None]  # side -> median seconds
    each: dict[str, list[float]]  # "project / markdown-exec", "project / BASE", "project - BASE" -> by round
    results: list[tuple[Check, float, bool]]

    def median(self, name: str) -> float | None:
        """The median over the rounds of a compared value, or None."""
        return statistics.median(self.each[name]) if self.each.get(name) else None


def evaluate(measure: Measure, rounds: list[Round]) -> Row | None:
    """A measure over the rounds that have its figures (None if no round has them)."""
    keys = {"project": measure.project, "markdown-exec": measure.mdexec, "BASE": measure.base}
    have = [r for r in rounds if measure.project in r.seconds]
    if not have:
        return None
    seconds = {side: statistics.median([r.seconds[key] for r in have]) if key else None for side, key in keys.items()}
    each = {}
    for other in ("markdown-exec", "BASE"):
        if keys[other]:
            each[f"project / {other}"] = [r.seconds[measure.project] / r.seconds[keys[other]] for r in have]
            each[f"project - {other}"] = [r.seconds[measure.project] - r.seconds[keys[other]] for r in have]
    results = []
    for check in measure.checks:
        value = statistics.median(each[f"project {'/' if check.kind == 'ratio' else '-'} {check.other}"])
        results.append((check, value, value <= check.limit))
    return Row(measure, seconds, each, results)


def cell(value: float | None, unit: str = "") -> str:
    """A table cell: a number with two decimals, or a dash."""
    return "-" if value is None else f"{value:.2f}{unit}"


def print_table(rows: list[Row]) -> None:
    """The table of medians, targets and PASS/MISS, then each round's compared values."""
    print("| measure | project | markdown-exec | BASE | project / markdown-exec | project / BASE | target | |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        sides = " | ".join(cell(row.seconds[side], " s") for side in ("project", "markdown-exec", "BASE"))
        ratios = " | ".join(cell(row.median(f"project / {other}")) for other in ("markdown-exec", "BASE"))
        targets = "; ".join(check.text() + (f" ({value:+.2f} s)" if check.kind == "extra" else "")
                            for check, value, _ in row.results) or "-"
        verdict = "; ".join("PASS" if passed else "MISS" for _, _, passed in row.results)
        print(f"| {row.measure.label} | {sides} | {ratios} | {targets} | {verdict} |")
    print("\neach round's values (project / other side; project - BASE in seconds where a target uses it):")
    for row in rows:
        extra = any(check.kind == "extra" for check in row.measure.checks)
        shown = [name for name in row.each if "/" in name or (extra and name == "project - BASE")]
        print(f"  {row.measure.label}: " + "; ".join(
            f"{name} " + ", ".join(f"{value:.2f}" for value in row.each[name]) for name in shown))


def print_memory(rounds: list[Round], labels: list[str]) -> None:
    """Peak resident set (MiB) of the cold builds, median over the rounds (largest process)."""
    parts = []
    for label in labels:
        for name in (f"{label} project cold", f"{label} markdown-exec build", f"{label} BASE build"):
            peaks = [r.peaks[name] for r in rounds if name in r.peaks]
            if peaks:
                parts.append(f"{name.replace(' build', '')} {statistics.median(peaks):.0f} MiB "
                             f"({', '.join(f'{p:.0f}' for p in peaks)})")
    print("peak memory (largest resident set of any process in the build's tree, ru_maxrss), median (rounds): "
          + "; ".join(parts))


def print_cpu(rounds: list[Round]) -> None:
    """Median CPU seconds of each kind of build (user + system, the whole tree): the work done,
    steadier than wall-clock seconds on a shared machine, though not what a target compares."""
    figures = ", ".join(f"{name} {statistics.median(r.cpu[name] for r in rounds):.2f}" for name in rounds[0].cpu)
    print(f"CPU seconds of the builds (user + system of the whole tree), median: {figures}")


def print_recording(rounds: list[Round]) -> None:
    """What recording a teaching figure added per example (``recording_cost``), median over the rounds."""
    costs = [r.recording for r in rounds if r.recording]
    if costs:
        median = statistics.median(c.ms_per_example for c in costs)
        print(f"recording a teaching figure: {median:.1f} ms per example that asks for one ({costs[0].examples} "
              f"examples; rounds {', '.join(f'{c.ms_per_example:.1f}' for c in costs)}); target <= 5 ms: "
              f"{'PASS' if median <= 5 else 'MISS'}")


def print_printing(rounds: list[Round]) -> None:
    """What a print costs under the engine against ``python -u`` (``printing_cost``), median over the rounds."""
    costs = [r.printing for r in rounds if r.printing]
    if costs:
        ratio = statistics.median(c.ratio for c in costs)
        print(f"printing: {statistics.median(c.engine_us for c in costs):.1f} µs a print under the engine, "
              f"{statistics.median(c.python_us for c in costs):.1f} µs under python -u: {ratio:.1f}x (rounds "
              f"{', '.join(f'{c.ratio:.1f}' for c in costs)}); target <= 3x: {'PASS' if ratio <= 3 else 'MISS'}")


def print_round(rnd: Round) -> None:
    """A round's seconds, as they come."""
    figures = ", ".join(f"{name} {seconds:.2f}" for name, seconds in rnd.seconds.items())
    notes = f" [{'; '.join(rnd.notes)}]" if rnd.notes else ""
    print(f"  round {rnd.number + 1} (s): {figures}; load average {os.getloadavg()[0]:.1f}{notes}", flush=True)


def machine() -> str:
    """The machine line: CPU, cores, Python, torch and the builders' versions."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(encoding="utf-8"), re.M)
        cpu = found[1] if found else cpu
    versions = ", ".join(f"{name} {metadata.version(name)}" for name in ("torch", "mkdocs", "mkdocs-material"))
    return (f"machine: {cpu} ({platform.machine()}), {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"{versions}, {MARKDOWN_EXEC[0]} {MARKDOWN_EXEC[1]}; load average {os.getloadavg()[0]:.1f}")
