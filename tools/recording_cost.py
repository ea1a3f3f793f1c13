"""What recording a teaching figure costs an example (issue 18's target: at most 5 ms each).

An example that asks for a figure beyond the graph's structure (``# docexec: figure=gradients``
and the other kinds of ``docexec.source.snippets.FIGURE_KINDS``) runs with hooks the engine adds in its
process, and its facts are turned into the figure's labels there. This module runs every such
example of a site twice through the engine's own scheduler (``docexec.run.execute.run_snippets``, one
worker kept for all runs, one example at a time): as the example asks, and with its ``figure``
option taken out. The cost of recording is the difference of each example's process time (fork to
end, ``RunResult.seconds``), median over the repetitions, averaged over the examples.
"""

from __future__ import annotations

import statistics
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass
class RecordingCost:
    """Milliseconds recording added per example (mean over the examples of the median difference),
    and how many examples ask for a recorded figure."""

    ms_per_example: float
    examples: int


def recorded_examples(root: Path) -> dict[str, dict]:
    """The examples under ``root/snippets`` whose options ask for a recorded figure, with their options."""
    from docexec.source.snippets import NO_FIGURE, discover, options, read_source

    found = {}
    for path in discover(root):
        given = options(read_source(root / path))
        if given.get("figure", NO_FIGURE) != NO_FIGURE:
            found[path] = given
    return found


def recording_cost(root: Path, repeat: int = 5, flip: bool = False) -> RecordingCost:
    """Run the recorded examples of the site at ``root`` with and without recording, ``repeat``
    times each, alternating (the other way round when ``flip``), after one run of each way that is
    not counted (the first runs of a worker fault in pages that later ones share).

    Raises:
        SystemExit: an example failed in either way of running it (the figures would not compare).
    """
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from docexec.run.execute import run_snippets, start_worker, stop_worker

    asked = recorded_examples(root)
    plain = {path: {k: v for k, v in given.items() if k != "figure"} for path, given in asked.items()}
    seconds: dict[str, dict[str, list[float]]] = {"recorded": {}, "plain": {}}
    worker = start_worker(root)
    try:
        for turn in range(2 * repeat + 2):
            kind = "recorded" if (turn % 2 == 0) != flip else "plain"
            results = run_snippets(root, list(asked), jobs=1, options=asked if kind == "recorded" else plain,
                                   worker=worker, keep=True)
            for path, result in results.items():
                if not result.ok:
                    raise SystemExit(f"{path}: {result.error_type}: {result.error_message}")
                if turn >= 2:
                    seconds[kind].setdefault(path, []).append(result.seconds)
    finally:
        stop_worker(worker)
    differences = [statistics.median(seconds["recorded"][p]) - statistics.median(seconds["plain"][p]) for p in asked]
    return RecordingCost(1000 * statistics.fmean(differences) if differences else 0.0, len(asked))
