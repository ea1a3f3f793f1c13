"""Every private API of another package that docexec uses, in one place.

Each function below names what it reaches into. The packages whose private parts are used were
read at the versions in ``WRITTEN_FOR``; ``version_problem`` says, in one line, when the installed
version is another (the MkDocs hook and the notebook converter ask at start-up and stop the build
with that line). CPython's private functions used by the example's process (``threading._shutdown``,
``atexit._run_exitfuncs``, ``weakref.finalize._registry``) are checked by ``missing_from_python``.
Nothing here imports MkDocs or nbconvert: the objects are handed in.
"""

from __future__ import annotations

import atexit
import functools
import threading
import weakref
from collections.abc import Callable
from importlib import metadata

#: The versions whose private parts this module was written against (requirements.txt pins them).
WRITTEN_FOR = {"mkdocs": "1.6.1", "properdocs": "1.6.7", "nbconvert": "7.17.2", "mkdocs-jupyter": "0.26.3",
               "mkdocs-material": "9.8.2", "watchdog": "7.1.1"}


def version_problem(package: str) -> str | None:
    """One line when the installed ``package`` is not the version this module was written for."""
    try:
        installed = metadata.version(package)
    except metadata.PackageNotFoundError:
        return None  # not this host: nothing of it is used
    wanted = WRITTEN_FOR[package]
    if installed == wanted:
        return None
    return (f"docexec: written for {package} {wanted}, whose private parts it uses (docexec/core/compat.py); "
            f"{installed} is installed: pin {package}=={wanted} in requirements.txt, or check compat.py "
            "against the new version and update WRITTEN_FOR")


def missing_from_python() -> list[str]:
    """The private CPython functions used to end an example as Python ends a program that this
    Python lacks."""
    wanted = {"threading._shutdown": hasattr(threading, "_shutdown"),
              "atexit._run_exitfuncs": hasattr(atexit, "_run_exitfuncs"),
              "weakref.finalize._registry": hasattr(weakref.finalize, "_registry")}
    return [name for name, present in wanted.items() if not present]


# -- CPython: ending a forked example as Py_FinalizeEx does ----------------------------------------

def join_non_daemon_threads() -> None:
    """Wait for the threads that are not daemons, as the interpreter does at exit."""
    threading._shutdown()


def run_atexit_handlers() -> None:
    """Run the ``atexit`` handlers now, as the interpreter does at exit."""
    atexit._run_exitfuncs()


def forget_weakref_finalizers() -> None:
    """Detach every ``weakref.finalize`` callback at once (what ``detach()`` does to each)."""
    weakref.finalize._registry.clear()


# -- MkDocs (and ProperDocs, its fork): a page rendered from kept HTML -----------------------------

def page_title(page) -> str | None:
    """The title ``Page.render`` found in the page's HTML (``Page._title_from_render``)."""
    return page._title_from_render


def set_page_title(page, title: str | None) -> None:
    """Set what ``Page.render`` would have found as the page's title."""
    page._title_from_render = title


def render_page_with(page, render: Callable) -> None:
    """Make ``page.render(config, files)`` call ``render`` instead (MkDocs calls it by that name)."""
    page.render = render


def render_page_as_usual(page, config, files) -> None:
    """``Page.render`` of the page's class, whatever ``render_page_with`` put on the instance."""
    type(page).render(page, config, files)


def replace_builder(server, builder: Callable) -> None:
    """Make ``mkdocs serve`` call ``builder`` for each rebuild (``LiveReloadServer.builder``)."""
    server.builder = builder


def watch_with(server, observer) -> None:
    """Make ``mkdocs serve`` watch its paths with ``observer`` (a watchdog observer) instead of the
    ``PollingObserver`` it made (``LiveReloadServer.observer``): each path watched so far
    (``LiveReloadServer._watched_paths``, with how often it was asked for) is unwatched and watched
    again through ``observer``; paths watched later go to it directly. Before the server starts."""
    watched = dict(server._watched_paths)
    for path, count in watched.items():
        for _ in range(count):
            server.unwatch(path)
    server.observer = observer
    for path, count in watched.items():
        for _ in range(count):
            server.watch(path)


def load_templates_with(theme, make_loader: Callable) -> None:
    """Make the environments ``theme`` (MkDocs' ``Theme``, made anew for each build) gives
    (``Theme.get_env``, which a build calls once, before listing the theme's files) load templates
    with the loader ``make_loader(loader)`` makes of the one MkDocs gave them."""
    get_env = theme.get_env

    def get_env_with_loader():
        env = get_env()
        env.loader = make_loader(env.loader)
        return env

    theme.get_env = get_env_with_loader


def rebuild_after(server, seconds: float) -> None:
    """Make ``mkdocs serve`` begin a rebuild once no file has changed for ``seconds``
    (``LiveReloadServer.build_delay``, 0.1 s in MkDocs 1.6, set in its ``__init__`` with no option)."""
    server.build_delay = seconds


def reuse_search_entries(search_module, entries) -> None:
    """Make Material's search index (``SearchIndex`` of ``material.plugins.search.plugin``, read at
    mkdocs-material 9.8.2) add a page's entries through ``entries`` (``docexec.host.serve.SearchEntries``),
    which gives the kept ones of an unchanged page; once per process."""
    index_class = search_module.SearchIndex
    add_entries = getattr(index_class.add_entry_from_context, "__wrapped__", index_class.add_entry_from_context)

    @functools.wraps(add_entries)
    def add_entry_from_context(index, page):
        entries.add(index, page, add_entries)

    index_class.add_entry_from_context = add_entry_from_context


# -- nbconvert and mkdocs-jupyter: a notebook converted as the plugin converts it ------------------

def init_resources(exporter, resources):
    """``Exporter._init_resources``: the resources a conversion starts from."""
    return exporter._init_resources(resources)


def notebook_metadata(exporter) -> dict:
    """``TemplateExporter._nb_metadata``: the notebook's metadata, set by ``_init_resources``."""
    return exporter._nb_metadata


def reset_nb2html(nbconvert2) -> None:
    """What ``mkdocs_jupyter.nbconvert2.nb2html`` sets before each notebook: copy buttons numbered
    from 0, the kernel's language (module globals of that module)."""
    nbconvert2.cell_id = 0
    nbconvert2.kernel_lang = "python"


def nb2html_state(nbconvert2) -> tuple[int, str]:
    """The copy button number ``nbconvert2``'s highlighting gave last, and the kernel's language
    (module globals of ``mkdocs_jupyter.nbconvert2``)."""
    return nbconvert2.cell_id, nbconvert2.kernel_lang


def set_copy_button_number(nbconvert2, number: int) -> None:
    """Make ``number`` the copy button number ``nbconvert2``'s highlighting gave last."""
    nbconvert2.cell_id = number
