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
    """A target: the project's figure at most ``limit`` times the other side's (``ratio``), at most
    the other side's plus ``limit`` seconds (``extra``), or at most ``limit`` seconds (``seconds``;
    ``other`` is then empty)."""

    other: str  # "markdown-exec", "BASE" or ""
    kind: str  # "ratio", "extra" or "seconds"
    limit: float

    def text(self) -> str:
        """The target as written in the table."""
        if self.kind == "seconds":
            return f"<= {self.limit} s"
        return f"<= {self.limit} x {self.other}" if self.kind == "ratio" else f"<= {self.other} + {self.limit} s"

    def value(self, row: Row) -> float:
        """What the check compares: the median over the rounds of the project's figure, or of
        each round's ratio or difference."""
        if self.kind == "seconds":
            return row.seconds["project"]
        return statistics.median(row.each[f"project {'/' if self.kind == 'ratio' else '-'} {self.other}"])


@dataclass(frozen=True)
class Measure:
    """A line of the table: the round figures (keys of ``Round.seconds``, or of ``Round.cpu`` when
    ``figure`` is "cpu") of each side, and the targets."""

    label: str
    project: str
    mdexec: str | None
    base: str | None
    checks: tuple[Check, ...] = ()
    figure: str = "seconds"  # "seconds" (wall clock) or "cpu" (CPU seconds of the whole tree)


def size_measures(label: str, count: int) -> list[Measure]:
    """The table's lines for one size of site (``label``: 1x or 10x; ``count`` examples)."""
    cold = (f"{label} project cold", f"{label} markdown-exec build", f"{label} BASE build")
    warm = 0.8 if label == "1x" else 0.7
    return [
        Measure(f"cold, {label} ({count} examples)", *cold, (Check("markdown-exec", "ratio", 0.75),)),
        Measure(f"cold CPU seconds, {label}", *cold, (Check("markdown-exec", "ratio", 1.0),), figure="cpu"),
        Measure(f"cold on one core, {label}", f"{label} project one core", f"{label} markdown-exec one core",
                f"{label} BASE one core", (Check("markdown-exec", "ratio", 1.0),)),
        Measure(f"warm, {label}", f"{label} project warm", f"{label} markdown-exec build", f"{label} BASE warm",
                (Check("BASE", "ratio", warm),)),
        Measure(f"one example edited, rebuild, {label}", f"{label} project example edit",
                f"{label} markdown-exec build", f"{label} BASE warm"),
        Measure(f"prose edited, rebuild, {label}", f"{label} project prose edit",
                f"{label} markdown-exec build", f"{label} BASE warm"),
    ]


def measures(examples: dict[str, int]) -> list[Measure]:
    """The table's lines, for the sizes measured (``examples``: examples by size label)."""
    rows = [measure for label, count in examples.items() for measure in size_measures(label, count)]
    rows += [
        Measure("one example edited under serve, write to reload", "serve project example",
                "serve markdown-exec example", "serve BASE example", (Check("", "seconds", 1.0),)),
        Measure("prose edited under serve, write to reload", "serve project prose", None, "serve BASE prose",
                (Check("BASE", "ratio", 0.8),)),
    ]
    return rows


@dataclass
class Row:
    """A measure's medians over the rounds, each round's compared values, and its checks' results."""

    measure: Measure
    seconds: dict[str, float | None]  # side -> median figure (seconds, or CPU seconds)
    each: dict[str, list[float]]  # "project / markdown-exec", "project / BASE", "project - BASE" -> by round
    results: list[tuple[Check, float, bool]]

    def median(self, name: str) -> float | None:
        """The median over the rounds of a compared value, or None."""
        return statistics.median(self.each[name]) if self.each.get(name) else None


def evaluate(measure: Measure, rounds: list[Round]) -> Row | None:
    """A measure over the rounds that have its figures (None if no round has them)."""
    keys = {"project": measure.project, "markdown-exec": measure.mdexec, "BASE": measure.base}
    figures = [getattr(r, measure.figure) for r in rounds if measure.project in getattr(r, measure.figure)]
    if not figures:
        return None
    seconds = {side: statistics.median([f[key] for f in figures if key in f]) if key and any(key in f for f in figures)
               else None for side, key in keys.items()}
    each = {}
    for other in ("markdown-exec", "BASE"):
        have = [f for f in figures if keys[other] in f] if keys[other] else []
        if have:
            each[f"project / {other}"] = [f[measure.project] / f[keys[other]] for f in have]
            each[f"project - {other}"] = [f[measure.project] - f[keys[other]] for f in have]
    row = Row(measure, seconds, each, [])
    row.results = [(check, value, value <= check.limit) for check in measure.checks
                   if (value := _checked(check, row)) is not None]
    return row


def _checked(check: Check, row: Row) -> float | None:
    """The value ``check`` compares in ``row``, or None where the rounds lack the other side."""
    try:
        return check.value(row)
    except (KeyError, statistics.StatisticsError):
        return None


def cell(value: float | None, unit: str = "") -> str:
    """A table cell: a number with two decimals, or a dash."""
    return "-" if value is None else f"{value:.2f}{unit}"


def print_table(rows: list[Row]) -> None:
    """The table of medians, targets and PASS/MISS, then each round's compared values."""
    print("| measure | project | markdown-exec | BASE | project / markdown-exec | project / BASE | target | |")
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        unit = " CPU s" if row.measure.figure == "cpu" else " s"
        sides = " | ".join(cell(row.seconds[side], unit) for side in ("project", "markdown-exec", "BASE"))
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


#: The peak memory of a cold build at the largest size measured may not exceed this (MiB): the
#: figure measured when the target was set.
PEAK_LIMIT_MIB = 316


def print_memory(rounds: list[Round], labels: list[str]) -> None:
    """Peak resident set (MiB) of the cold builds, median over the rounds (largest process), and
    the target for the project's cold build at the largest size."""
    parts = []
    for label in labels:
        for name in (f"{label} project cold", f"{label} markdown-exec build", f"{label} BASE build"):
            peaks = [r.peaks[name] for r in rounds if name in r.peaks]
            if peaks:
                parts.append(f"{name.replace(' build', '')} {statistics.median(peaks):.0f} MiB "
                             f"({', '.join(f'{p:.0f}' for p in peaks)})")
    print("peak memory (largest resident set of any process in the build's tree, ru_maxrss), median (rounds): "
          + "; ".join(parts))
    peaks = [r.peaks[f"{labels[-1]} project cold"] for r in rounds if f"{labels[-1]} project cold" in r.peaks]
    if peaks:
        peak = statistics.median(peaks)
        print(f"peak memory of a cold {labels[-1]} build: {peak:.0f} MiB; target <= {PEAK_LIMIT_MIB} MiB: "
              f"{'PASS' if peak <= PEAK_LIMIT_MIB else 'MISS'}")


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
