"""Build machinery of the autograd course: run snippets, check their output claims.

Modules, one job each:

* ``docexec.worker``   runs snippets (imports torch once, forks one child per snippet);
* ``docexec.execute``  starts the worker and returns a ``RunResult`` per snippet;
* ``docexec.claims``   reads, checks and rewrites the output claims written in snippet comments;
* ``docexec.session``  one build's runs, their problems and each include's output;
* ``docexec.markdown_ext``  the Python-Markdown extension that puts outputs on pages;
* ``docexec.cli``      ``python -m docexec check|fix``.

Nothing here imports MkDocs; ``hooks/mkdocs_adapter.py`` is the only MkDocs-specific file.
"""

__version__ = "0.1.0"
