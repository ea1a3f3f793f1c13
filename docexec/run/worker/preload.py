"""What the worker imports once before forking: torch, NumPy, the modules torch imports lazily, and
a group's own modules; and the record of the installation those imports came from (for the run
cache)."""

from __future__ import annotations

import contextlib
import json
import os
import sys


def preload() -> None:
    """Import torch (and NumPy) once, so that every forked child starts with them, and the modules
    torch imports lazily (``WARM_IMPORTS``) if that is silent.

    A reader who runs an example sees what torch writes or warns the first time it imports one of
    those; imported here, before the fork, it would be written in no example's run. So if importing
    them writes anything, or shows a warning (under Python's default warning filters, which every
    example starts with), this process starts again without them (``WARM_ENV`` set to 0), before
    it has read any request: each example then imports them itself and shows what a reader would.
    Left out: an example that turns on a warning hidden by default (a ``DeprecationWarning``)
    before its first use of ``torch.func`` does not see one that importing it raised.
    """
    INHERITED_ENVIRONMENT.update(os.environ)
    INHERITED_ENVIRONMENT.pop(WARM_ENV, None)  # set by this process itself (below)
    import torch  # noqa: F401

    with contextlib.suppress(ImportError):
        import numpy  # noqa: F401
    if os.environ.get(WARM_ENV, "1") != "0" and not _warm_imports():
        os.environ[WARM_ENV] = "0"
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, "-m", "docexec.run.worker"])


#: The environment this process was started with (``docexec.run.protocol.worker_environment``):
#: a variable whose value differs from it in a snippet was set by what ``preload`` imported
#: (``TORCHINDUCTOR_CACHE_DIR``), which the run cache does not track (``FileReads.watch``).
INHERITED_ENVIRONMENT: dict[str, str] = {}

#: The environment variable that turns ``WARM_IMPORTS`` off (0); the worker sets it itself when
#: importing them is not silent (``preload``).
WARM_ENV = "DOCEXEC_WARM_IMPORTS"


def _warm_imports() -> bool:
    """Import ``WARM_IMPORTS``; returns whether that wrote nothing and showed no warning."""
    import importlib
    import io
    import warnings

    written = io.StringIO()
    with warnings.catch_warnings(record=True) as shown, contextlib.redirect_stdout(written), \
            contextlib.redirect_stderr(written):
        for name in WARM_IMPORTS:
            with contextlib.suppress(Exception):  # another torch may lack one: its snippets import it
                importlib.import_module(name)
    return not shown and not written.getvalue()


def prepare(modules: list[str]) -> None:
    """Make this process the state every child starts from: ``modules`` imported, seeded, frozen.

    A module that fails to import is left alone: the snippet that needs it imports it again and
    reports the error itself. ``gc.freeze()`` (https://docs.python.org/3/library/gc.html#gc.freeze)
    keeps the cycle collector of a child from visiting, and so copying, every object inherited
    from the worker; without it one ``gc.collect()`` in a snippet costs about 0.2 s.
    """
    import encodings.utf_8_sig  # noqa: F401 - what run_child reads the snippet with
    import gc
    import importlib

    from docexec.run.worker import record  # noqa: F401 - what the child records with

    for name in modules:
        with contextlib.suppress(Exception):  # the snippet that needs it reports the error itself
            importlib.import_module(name)
    _warm_up()
    _seed()
    gc.freeze()


#: The installation records this process wrote, each with the modules it had imported then: written
#: again only once it has imported another (the files' sizes and times are read once per import;
#: a file changed since is what the build's next look (``RunCache.installation_changed``) must see).
RECORDED: dict[str, frozenset[str]] = {}


def record_installation(root: str, preload: list[str], worker: bool = False) -> None:
    """Write the size and modification time of every installed module file this process has
    imported (torch and what it imports, and ``preload``) to
    ``<root>/.cache/docexec/installation/<preload>.json``: the snippets forked from here see those
    modules without importing them, so a change to one of them must invalidate every cached run
    (``docexec.run.cache.RunCache.installation_changed``).

    In the worker (``worker``), the records of sub-workers whose modules it has imported itself are
    written too, with its own files (theirs among them): no sub-worker that would write them again
    is started while it has them (``Request.merged``), and a record never written again would, once
    stale, make every later build run every snippet again. They are not removed: a later worker
    without those modules would then record none of their files."""

    from docexec.core.files import write_atomically
    from docexec.run.cache import CACHE_DIR, INSTALLATION_DIR

    name = "-".join(preload) or "worker"
    folder = os.path.join(root, CACHE_DIR, INSTALLATION_DIR)
    record, imported = os.path.join(folder, f"{name}.json"), frozenset(sys.modules)
    if RECORDED.get(record) == imported and os.path.exists(record):
        return  # a worker serving request after request (mkdocs serve) has imported nothing since
    places = tuple(os.path.join(p, "") for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    files = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(places):
            with contextlib.suppress(OSError):
                stat = os.stat(path)
                files[path] = [stat.st_size, stat.st_mtime_ns]
    with contextlib.suppress(OSError):
        write_atomically(record, json.dumps(files, sort_keys=True))
        RECORDED[record] = imported
        for other in os.listdir(folder) if worker else []:
            modules = other.removesuffix(".json").split("-")
            if other.endswith(".json") and other != f"{name}.json" and all(m in sys.modules for m in modules):
                write_atomically(os.path.join(folder, other), json.dumps(files, sort_keys=True))


def _seed() -> None:
    """Start every snippet from the same random state (Python, torch, NumPy)."""
    import random

    import torch

    random.seed(0)
    torch.manual_seed(0)
    try:
        import numpy

        numpy.random.seed(0)
    except ImportError:
        pass


#: Modules torch imports lazily, on a snippet's first backward pass (``_make_grads`` imports the
#: symbolic shapes module, and SymPy with it) or first ``torch.func`` transform (TorchDynamo, the
#: decompositions for forward mode). Imported once in the worker (``preload``), they cost no child
#: anything: without them, these imports were about 85% of the time the examples of this site ran.
WARM_IMPORTS = ("torch.fx.experimental.symbolic_shapes", "torch.func", "torch._dynamo",
                "torch._decomp.decompositions_for_jvp")


def _warm_up() -> None:
    """Pay once, before forking, what torch pays on a first tensor operation and a first tensor
    repr (lazy initialisation in the dispatcher and in ``torch._tensor_str``), so that no child
    pays it again. No tensor requires grad: no autograd Node is made (which would advance the
    sequence numbers a snippet can print), no engine started, no random number drawn.
    """
    import torch

    x = torch.ones(2)
    repr((x * 2 + 1).sum()), repr(x)
