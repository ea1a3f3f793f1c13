"""``python -m docexec.worker``: handle signals, read the request, run it, report on stdout."""

from __future__ import annotations

import os
import signal
import sys

from docexec.protocol import DONE, Request

from .pool import preload, serve, stop_everything


def main() -> None:
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
