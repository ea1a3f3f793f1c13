"""What a snippet's source tells the scheduler before it runs: the slow modules it will import
lazily (so that a sub-worker imports them once for every snippet that needs them) and whether it
starts another program (so that it is sent first). Guesses from words: a snippet they miss still
runs correctly, only slower."""

from __future__ import annotations

import re

#: What a first ``torch.compile`` call imports beyond ``torch._dynamo`` (measured on torch 2.13 by
#: running the torch.compile chapter's examples and listing the new entries of ``sys.modules``): importing them is
#: silent and sets nothing an example can see.
COMPILE_IMPORTS = ("torch._dynamo", "torch._functorch.aot_autograd", "torch._dynamo.backends.common",
                   "torch._dynamo.backends.debugging", "torch._dynamo.backends.registry", "functorch.compile",
                   "torch._inductor.compile_fx", "torch._inductor.compiler_bisector",
                   "torch.distributed.tensor.experimental", "torch.export._trace",
                   "torch.fx.experimental.validator", "torch._dynamo.repro.after_dynamo")

#: Modules that some PyTorch features import lazily on first use and that take a second or more to
#: import, with the words that mark a snippet using such a feature. Imported once, in a sub-worker
#: that runs the snippets with those words, rather than once in each of their processes. Measured
#: on torch 2.13: optimizers and checkpointing import torch._dynamo (about 2.2 s); a first
#: ``torch.compile`` call, even with the ``aot_eager`` backend, imports AOTAutograd, every backend
#: module and much of Inductor (``COMPILE_IMPORTS``, about 1.1 s more); gradcheck and
#: torch.autograd.functional import symbolic_shapes, which imports SymPy (about 0.8 s). A snippet
#: the words miss still runs correctly, only slower. Slowest first; a snippet gets the first match
#: (each imports what the ones after it import).
LAZY_HEAVY: dict[tuple[str, ...], re.Pattern] = {
    COMPILE_IMPORTS: re.compile(r"\bcompile\b|aot_autograd|aot_function"),
    ("torch._dynamo",): re.compile(r"\boptim\b|checkpoint"),
    ("torch.fx.experimental.symbolic_shapes",): re.compile(
        r"gradcheck|gradgradcheck|\bfunctional\b|jacobian|hessian|\bvjp\b|\bjvp\b|\bvmap\b|torch\.func\b"),
}

#: Words that mark a snippet that starts another program: often another Python, which imports torch
#: anew (seconds; chapter 08's ``autograd_logging.py`` starts two). Such a snippet is a run's longest job,
#: so it is sent first (longest job first): it then runs while the others do, instead of after
#: them, where it would end the run alone on one core.
STARTS_A_PROGRAM = re.compile(r"\bsubprocess\b|\bos\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*)\b"
                              r"|\bsys\.executable\b")


def slow_imports(source: str) -> list[str]:
    """The modules to import before forking the process of a snippet whose text is ``source``."""
    return list(next((modules for modules, words in LAZY_HEAVY.items() if words.search(source)), ()))


def starts_a_program(source: str) -> bool:
    """Whether the snippet ``source`` seems to start another program (``STARTS_A_PROGRAM``)."""
    return STARTS_A_PROGRAM.search(source) is not None
