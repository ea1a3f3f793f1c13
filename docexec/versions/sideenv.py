"""A side environment with another PyTorch, for running the examples on it (``docexec.versions.drift``).

It is a virtual environment under ``.cache/drift/torch-<version>/`` made with ``python -m venv``
(https://docs.python.org/3/library/venv.html) from the interpreter that runs docexec, holding that
torch and the other packages the worker and the examples import, at the versions
``requirements.txt`` pins (``RUN_PACKAGES``). pip is run as it is configured on the machine (its
index, ``PIP_EXTRA_INDEX_URL``, ``PIP_FIND_LINKS``), so a machine that installs the pinned torch
installs another one the same way. A stamp file inside records what was installed: the next call
with the same packages reuses the environment, installing nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

DRIFT_DIR = ".cache/drift"  # relative to the repository root; `make clean` removes it with .cache
STAMP = ".docexec-installed"
#: Packages besides torch that the examples import, installed at the version requirements.txt pins.
RUN_PACKAGES = ("numpy",)
#: A version as pip accepts one in ``torch==<version>`` (PEP 440, without spaces or operators).
VERSION = re.compile(r"^[0-9]+(\.[0-9]+)*([a-zA-Z0-9.+!-]*)$")


class SideEnvError(RuntimeError):
    """The side environment could not be made or does not run; the message is one line."""


def base_version(version: str) -> str:
    """A torch version without its local part: ``2.13.0+cpu`` -> ``2.13.0``."""
    return version.split("+", 1)[0]


def pinned(root: Path, package: str) -> str | None:
    """The ``package==<version>`` line of ``root/requirements.txt``, or None if it pins none."""
    try:
        text = (Path(root) / "requirements.txt").read_text(encoding="utf-8")
    except OSError:
        return None
    match = re.search(rf"^{re.escape(package)}==(\S+)[ \t]*$", text, re.M | re.I)
    return f"{package}=={match.group(1)}" if match else None


def requirements(root: Path, torch: str) -> list[str]:
    """What the side environment of ``torch`` installs: ``torch==<torch>`` and ``RUN_PACKAGES`` as pinned."""
    return [f"torch=={torch}"] + [pinned(root, name) or name for name in RUN_PACKAGES]


def ensure(root: Path, torch: str, out=sys.stdout) -> str:
    """The interpreter of the side environment of PyTorch ``torch``, made first if it is missing
    or holds other packages (progress goes to ``out``).

    Returns:
        The path of its ``python``.

    Raises:
        SideEnvError: ``torch`` is not a version, or ``venv`` or ``pip`` failed (the message names
            the step and pip's own error line). An environment this call began is removed again.
    """
    if not VERSION.match(torch):
        raise SideEnvError(f"{torch!r} is not a PyTorch version (such as 2.14.1)")
    folder = Path(root).resolve() / DRIFT_DIR / f"torch-{torch}"
    python = folder / "bin" / "python"
    wanted = requirements(root, torch)
    stamp = folder / STAMP
    if python.is_file() and stamp.is_file() and stamp.read_text(encoding="utf-8").split() == wanted:
        return str(python)
    fresh = not folder.exists()
    print(f"docexec drift: making {folder.relative_to(Path(root).resolve())} (pip install {' '.join(wanted)}); "
          "a CUDA build of torch takes several GB", file=out, flush=True)
    try:
        if not python.is_file():
            _step([sys.executable, "-m", "venv", str(folder)], "python -m venv")
        _step([str(python), "-m", "pip", "install", "--quiet", *wanted], f"pip install {' '.join(wanted)}")
    except SideEnvError:
        if fresh:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    stamp.write_text(" ".join(wanted) + "\n", encoding="utf-8")
    return str(python)


def _step(command: list[str], name: str) -> None:
    """Run one step of making the environment; raise ``SideEnvError`` with its error line if it fails."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as exc:
        raise SideEnvError(f"{name} could not start: {exc}") from None
    if proc.returncode != 0:
        raise SideEnvError(f"{name} failed: {error_line(proc.stderr or proc.stdout)}")


def error_line(text: str) -> str:
    """The line of a tool's output that says what went wrong: pip's last ``ERROR:`` line, else the
    last line that is not a warning."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR:")]
    if errors:
        return errors[-1]
    others = [line for line in lines if not line.startswith("WARNING:")]
    return others[-1] if others else "(no message)"
