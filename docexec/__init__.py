"""Build machinery of the autograd course: run examples, check their claims, draw their graphs.

The folders are the stages of a build, lowest first; a module imports only from its own stage and
the stages above it in this list (``tests/test_layout.py`` checks it, and that no import goes round
in a circle). ``docs/architecture.md`` draws the pipeline.

``core``: what every stage shares
  * ``docexec.core.problems``  the one error shape: ``path:line: reason``;
  * ``docexec.core.files``     files written atomically, unused cache files removed;
  * ``docexec.core.compat``    every private API of MkDocs, nbconvert and CPython used, in one place,
    with the versions it was written for checked at start-up;
  * ``docexec.core.records``   what a run produced, as typed records, and their one JSON codec.

``source``: reading examples and pages
  * ``docexec.source.snippets``  where examples live, their sections and ``# docexec:`` options;
  * ``docexec.source.claims``    output claims in comments: read and checked;
  * ``docexec.source.rewrite``   claims rewritten to what the run printed (``make fix``);
  * ``docexec.source.targets``   an include line's target resolved to a file, or why it names none;
  * ``docexec.source.includes``  a page read once into include, fence, diagram and quote records;
  * ``docexec.source.quotes``    values the prose quotes from a run: ``{{ example: expression }}``, read;
  * ``docexec.source.config``    ``mkdocs.yml`` as docexec reads it (include folders, the published address).

``graphs``: autograd graphs and their figures
  * ``docexec.graphs.graph``    the autograd graph as DOT text (shown on chapter 01, run in the worker);
  * ``docexec.graphs.teach``    teaching facts drawn on a figure, and the key to the figures;
  * ``docexec.graphs.tooltips`` what each box of a figure is, in a sentence (its tooltip);
  * ``docexec.graphs.forward_figure``  the figure of a forward pass (``figure=tangents``);
  * ``docexec.graphs.figures``  committed DOT files kept in step with the runs, drawn as SVG.

``run``: running examples
  * ``docexec.run.protocol``  the typed records the build and the worker exchange;
  * ``docexec.run.worker``    the worker: imports torch once, forks one process per example
    (``child``: the example's process; ``capture``: what it writes; ``reads``: what it read;
    ``processes``: what it starts; ``record``: what autograd did; ``record_tangents``: what forward
    mode did; ``record_cuts``: where tensors were cut off the graph; ``preload``: imports before forking;
    ``pool``: slots, forks, timeouts);
  * ``docexec.run.execute``   starts the worker and turns its reports into ``RunResult`` records;
  * ``docexec.run.cache``     the run cache, keyed on everything a run read;
  * ``docexec.run.hints``     what an example's words say before it runs: slow imports, programs it starts;
  * ``docexec.run.runner``    the run scheduler: start, wait, cancel (a future per example);
  * ``docexec.run.results``   a read-only view of a build's runs: outputs by include, problems, graphs.

``versions``: the next PyTorch
  * ``docexec.versions.sideenv``  a side environment with another PyTorch under ``.cache/drift/``;
  * ``docexec.versions.drift``    the drift record ``drift.json``: what differs on the next PyTorch;
  * ``docexec.versions.compare``  the runs on two PyTorch versions compared into that record.

``pages``: what a page shows
  * ``docexec.pages.render``      an include's output block and figures, as HTML;
  * ``docexec.pages.drift_page``  a page's one note on the outputs the next PyTorch changes, and their page;
  * ``docexec.pages.quoted``      the values the prose quotes, found in the runs; values it writes by hand;
  * ``docexec.pages.places``      what a place left in a page's HTML stands for;
  * ``docexec.pages.page_store``  pages' HTML kept between builds;
  * ``docexec.pages.expand``      a page's Markdown with includes and outputs put in (for tests and tools).

``notebooks``: a chapter as a notebook
  * ``docexec.notebooks.chapter``        the chapter notebook, from the page record;
  * ``docexec.notebooks.colab``          its copy committed for Colab, and the address that opens it;
  * ``docexec.notebooks.notebook_html``  a notebook's page as mkdocs-jupyter shows one: kept, or asked of convert;
  * ``docexec.notebooks.convert``        the converting process (the only one that imports nbconvert);
  * ``docexec.notebooks.notebook_jobs``  a build's notebooks, made in the background.

``host``: what a site host runs
  * ``docexec.host.build``         one build's state: pages, places, checks, filling;
  * ``docexec.host.renderers``     what fills in each kind of place (one renderer per kind);
  * ``docexec.host.markdown_ext``  the Python-Markdown extension: every host runs it, and with it every check;
  * ``docexec.host.serve``         ``mkdocs serve``'s rebuilds, the last good build kept on show;
  * ``docexec.host.watch``         edits seen under ``mkdocs serve`` as they are written, each once;
  * ``docexec.host.rendered``      a page's template output given again under ``mkdocs serve``.

``tasks``: the commands' work
  * ``docexec.tasks.check``         ``make check``;
  * ``docexec.tasks.fix``           ``make fix``: claims, DOT files and Colab notebooks rewritten;
  * ``docexec.tasks.export``        ``make notebooks``;
  * ``docexec.tasks.drift_report``  ``make drift``;
  * ``docexec.tasks.upgrade``       ``make upgrade``.

``docexec.cli``: ``python -m docexec check|fix|notebooks|drift|upgrade``: parses arguments, prints.

Nothing here imports MkDocs; ``hooks/mkdocs_adapter.py`` is the only MkDocs-specific file.
"""

__version__ = "0.3.0"
