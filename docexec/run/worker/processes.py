"""The example's process and the processes it starts: ended with their parent, adopted when
orphaned, and ended with the example (Linux's prctl(2))."""

from __future__ import annotations

import contextlib
import os
import signal

#: prctl(2) options (Linux, <linux/prctl.h>)
_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def die_with_parent(signum: int, parent: int) -> None:
    """Have the kernel send this process ``signum`` when its parent ``parent`` ends (Linux prctl
    ``PR_SET_PDEATHSIG``; the parent must be single-threaded, as the worker is): a snippet whose
    worker was killed stops too, instead of running on past its timeout. If the parent is gone
    already, the signal comes at once."""
    _prctl(_PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:
        os.kill(os.getpid(), signum)


def adopt_orphans() -> None:
    """Make this process a child subreaper (Linux prctl ``PR_SET_CHILD_SUBREAPER``): a process
    started below it whose parent ends (a daemon, a process in a new session) becomes its child
    instead of init's, so that ``end_descendants`` can end it. A no-op where there is no prctl."""
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)


def children() -> list[int]:
    """The pids of this process's children (``/proc/self/task/*/children``; [] where there is none)."""
    found = []
    with contextlib.suppress(OSError):
        for task in os.listdir("/proc/self/task"):
            with open(f"/proc/self/task/{task}/children") as handle:
                found += [int(pid) for pid in handle.read().split()]
    return found


def end_descendants(keep: set[int] = frozenset()) -> None:
    """Kill every process below this one but ``keep`` (with ``adopt_orphans``, the orphans of its
    descendants are its children too), and reap them: nothing a snippet started outlives it."""
    for _ in range(20):  # each round ends one generation; their orphans come back as children
        strays = [pid for pid in children() if pid not in keep]
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
