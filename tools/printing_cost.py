"""What a print costs an example under the engine, against ``python -u`` (issue 33's target: within
3x of Python's own).

An example's ``print`` goes through the engine's recording streams (``docexec.run.worker.capture``):
each call is written to the page in order with the line that printed it, and recorded for its claim.
This module runs one example that prints ``LINES`` numbers through the engine's scheduler
(``docexec.run.execute.run_snippets``) and the same loop under ``python -u`` (unbuffered, as the
engine writes every print as it happens), each timing its own loop, and gives microseconds per print
of each, median over the repetitions.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: How many prints the timed loop makes.
LINES = 50_000

_LOOP = f"""# docexec: timeout=300
import time

start = time.perf_counter()
for number in range({LINES}):
    print(number)
took = time.perf_counter() - start
"""


@dataclass
class PrintingCost:
    """Microseconds per print under the engine and under ``python -u``, medians."""

    engine_us: float
    python_us: float

    @property
    def ratio(self) -> float:
        return self.engine_us / self.python_us


def printing_cost(root: Path, repeat: int = 3) -> PrintingCost:
    """Time ``LINES`` prints ``repeat`` times each way; the engine's example is written under
    ``root/snippets`` (a bench copy of the site) and removed after."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from docexec.run.execute import run_snippets, start_worker, stop_worker

    path = "snippets/bench-printing/loop.py"
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(_LOOP + "print(took)\n", encoding="utf-8")
    engine, python = [], []
    worker = start_worker(root)
    try:
        for _ in range(repeat):
            (result,) = run_snippets(root, [path], jobs=1, options={path: {"timeout": 300}}, worker=worker,
                                     keep=True).values()
            engine.append(float(result.chunks[-1].text) / LINES * 1e6)
            python.append(_python_us())
    finally:
        stop_worker(worker)
        (root / path).unlink()
        (root / path).parent.rmdir()
    return PrintingCost(statistics.median(engine), statistics.median(python))


def _python_us() -> float:
    """Microseconds per print of the same loop under ``python -u``, its output to a pipe."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "loop.py"
        script.write_text(_LOOP + "import sys\nsys.stderr.write(str(took))\n", encoding="utf-8")
        done = subprocess.run([sys.executable, "-u", str(script)], capture_output=True, text=True, check=True)
    return float(done.stderr) / LINES * 1e6
