"""Build machinery of the autograd course: run snippets, check their claims, draw their graphs.

Modules, one job each, in the order data flows through a build:

* ``docexec.snippets``  where snippets live, their sections and ``# docexec:`` options;
* ``docexec.protocol``  the typed records the build and the worker exchange;
* ``docexec.worker``    the worker: imports torch once, runs each snippet in a forked process
  (``child``: capture, prints, imports; ``pool``: slots, forks, timeouts, sub-workers);
* ``docexec.execute``   starts the worker and turns its reports into ``RunResult`` records;
* ``docexec.cache``     the run cache, keyed on everything a run read;
* ``docexec.runner``    the run scheduler: start, wait, cancel (a future per snippet);
* ``docexec.results``   a read-only view of a build's runs: outputs by include, problems, graphs;
* ``docexec.claims``    reads, checks and rewrites the output claims written in snippet comments;
* ``docexec.graph``     the autograd graph as DOT text (shown on chapter 01, run in the worker);
* ``docexec.figures``   committed DOT files kept in step with the runs, drawn as SVG per build;
* ``docexec.includes``  a page read once into include, fence and diagram records;
* ``docexec.render``    what an include shows (output block, figures, the note under the title);
* ``docexec.build``     one build's state: pages, places left in them, the checks, the filling;
* ``docexec.markdown_ext``  the Python-Markdown extension: every host runs it, and with it every check;
* ``docexec.notebooks`` a chapter as a Jupyter notebook, from the same records;
* ``docexec.files``     writing files atomically;
* ``docexec.sideenv``   a side environment with another PyTorch under ``.cache/drift/``;
* ``docexec.drift``     the runs on two PyTorch versions compared, the report and the record ``drift.json``;
* ``docexec.drift_page``  what readers see of the record: the notes under outputs and the page;
* ``docexec.upgrade``   moving the pin to another PyTorch (``make upgrade``);
* ``docexec.cli``       ``python -m docexec check|fix|notebooks|drift|upgrade``.

Nothing here imports MkDocs; ``hooks/mkdocs_adapter.py`` is the only MkDocs-specific file.
"""

__version__ = "0.2.0"
