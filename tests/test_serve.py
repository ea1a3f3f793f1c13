"""`make serve` on an address it cannot use ends in one line that says what to do, not a traceback."""

from __future__ import annotations

import re
import socket
import subprocess

from .conftest import ROOT


def serve(address: str) -> subprocess.CompletedProcess:
    return subprocess.run(["make", "--no-print-directory", "serve", f"ADDR={address}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def own_lines(proc: subprocess.CompletedProcess) -> list[str]:
    """What the command wrote, but make's own closing "make: *** ... Error 1" line (``make[1]:``
    under another make, such as ``make test``)."""
    return [line for line in (proc.stdout + proc.stderr).splitlines()
            if line.strip() and not re.match(r"make(\[\d+\])?: \*\*\*", line)]


def test_a_busy_port_gives_one_clear_line():
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        proc = serve(f"127.0.0.1:{port}")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stdout + proc.stderr
    assert own_lines(proc) == [f"make serve: 127.0.0.1:{port} is in use (another server?); serve on another "
                               f"address: make serve ADDR=127.0.0.1:{port + 1}"]


def test_an_address_that_is_not_host_and_port_says_how_to_write_one():
    proc = serve("8000")
    assert proc.returncode != 0
    assert own_lines(proc) == ["make serve: ADDR='8000' is not host:port; for example: make serve ADDR=127.0.0.1:8001"]
