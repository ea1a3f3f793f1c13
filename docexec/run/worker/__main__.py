"""``python -m docexec.run.worker``: handle signals, read the request, run it, report on stdout."""

from __future__ import annotations

import os
import signal
import sys

from docexec.core import compat
from docexec.run.protocol import DONE, Request
from docexec.run.worker.pool import serve, stop_everything
from docexec.run.worker.preload import preload


def main() -> None:
    missing = compat.missing_from_python()
    if missing:  # an example could not end as Python ends a program: say so, run nothing
        sys.exit(f"docexec: this Python ({sys.version.split()[0]}) lacks {', '.join(missing)}, which the worker "
                 "uses to end each example (docexec/core/compat.py)")
    signal.signal(signal.SIGTERM, stop_everything)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # a build run in the background ignores it
        signal.signal(signal.SIGINT, stop_everything)
    preload()  # before reading a request: the caller may start this process early
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # keep the channel clean: anything the worker itself prints goes to stderr
    for line in sys.stdin:  # one request a line, until the caller closes the input
        if line.strip():
            serve(Request.loads(line), out)
            out.write(DONE + "\n")
            out.flush()
    out.close()


if __name__ == "__main__":
    main()
