"""The execution worker: imports torch once, then runs each snippet in a forked process.

Run as ``python -m docexec.run.worker`` (``docexec.run.execute`` starts it): it reads one request
(``docexec.run.protocol.Request``) from standard input and writes one report line per finished
snippet (``docexec.run.protocol.Report``) to standard output, in the order the snippets finish.
Nothing else is ever written to its standard output.

Why a fork per snippet: importing torch takes seconds, so the worker pays it once; a forked
process starts from that already-imported state, and any global state a snippet changes
(``torch.set_grad_enabled(False)``, ``torch.set_default_dtype``, module globals, seeds) dies with
it, so the next snippet cannot see it.

Modules: ``child`` (the snippet's own process, from fork to exit), ``capture`` (what it writes,
tagged with its line), ``reads`` (what it read, for the run cache), ``processes`` (the processes it
starts, ended with it), ``record`` (what autograd did, for its figure; ``record_tangents`` and
``record_cuts`` for forward mode and cut-off tensors), ``preload`` (what the worker imports before
forking), ``pool`` (slots, forks, timeouts, sub-workers), ``__main__`` (signals and the channel).
The build never imports this package: it imports torch.
"""
