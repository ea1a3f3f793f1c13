"""Under ``mkdocs serve`` an edit is seen as it is written (the system's change notices), once, by
whichever of the native observer and MkDocs' polling sees it first; a file only read is no edit."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

from docexec.core import compat
from docexec.host.watch import BothObservers


class Reports(FileSystemEventHandler):
    """The files reported changed, in order."""

    def __init__(self):
        self.paths: list[str] = []
        self.changed = threading.Event()

    def on_any_event(self, event):
        if not event.is_directory:
            self.paths.append(event.src_path)
            self.changed.set()


def watching(folder, observer):
    reports = Reports()
    observer.schedule(reports, str(folder), recursive=True)
    observer.start()
    return reports


def edit(folder, text: str):
    """Write ``folder/example.py`` in one step (made beside the folder, moved in), so that no
    observer can see it half written."""
    staged = folder.parent / "staged.py"
    staged.write_text(text)
    os.replace(staged, folder / "example.py")


def stop(observer):
    observer.stop()
    observer.join()


def test_an_edit_is_seen_without_waiting_for_a_poll(tmp_path):
    observer = BothObservers(timeout=60)  # polling would see it in a minute
    reports = watching(tmp_path, observer)
    try:
        (tmp_path / "example.py").write_text("print(1)\n")
        assert reports.changed.wait(10), "no report: only polling watched"
    finally:
        stop(observer)
    assert observer.native_failed is None


def edits_reported(tmp_path, texts: list[str]) -> list[str]:
    """The files reported while ``texts`` are written in turn to ``snippets/example.py``, both
    observers watching (polling ten times a second), each edit given half a second."""
    folder = tmp_path / "snippets"
    folder.mkdir()
    observer = BothObservers(timeout=0.1)
    reports = watching(folder, observer)
    try:
        for text in texts:
            reports.changed.clear()
            edit(folder, text)
            assert reports.changed.wait(10)
            time.sleep(0.5)  # five polls
    finally:
        stop(observer)
    return reports.paths


def test_one_edit_is_reported_once_though_both_observers_see_it(tmp_path):
    assert edits_reported(tmp_path, ["print(1)\n"]) == [str(tmp_path / "snippets" / "example.py")]


def test_a_second_edit_is_reported_again(tmp_path):
    assert len(edits_reported(tmp_path, ["print(1)\n", "print(22)\n"])) == 2


def test_a_file_only_read_is_not_an_edit(tmp_path):
    (tmp_path / "example.py").write_text("print(1)\n")
    observer = BothObservers(timeout=60)
    reports = watching(tmp_path, observer)
    try:
        time.sleep(0.2)
        assert (tmp_path / "example.py").read_text() == "print(1)\n"  # as the build reads it
        time.sleep(1.0)
    finally:
        stop(observer)
    assert reports.paths == []


class Refusing(Observer):
    """A native observer that cannot start, as where no inotify watch is left."""

    def start(self):
        raise OSError(28, "inotify watch limit reached")


def test_without_the_native_observer_polling_goes_on_and_one_line_says_so(tmp_path, caplog):
    observer = BothObservers(native=Refusing(), timeout=0.1)
    with caplog.at_level(logging.INFO, logger="mkdocs.plugins.docexec"):
        reports = watching(tmp_path, observer)
    try:
        (tmp_path / "example.py").write_text("print(1)\n")
        assert reports.changed.wait(10)
    finally:
        stop(observer)
    assert observer.native_failed == "inotify watch limit reached"
    assert [record.getMessage() for record in caplog.records] == [
        "docexec: edits are looked for every half second (the system's change notices could not be used: "
        "inotify watch limit reached)"]


def test_mkdocs_serve_watches_through_the_observer_given_it(tmp_path):
    from mkdocs.livereload import LiveReloadServer

    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    (tmp_path / "docs").mkdir()
    (tmp_path / "snippets").mkdir()
    server.watch(str(tmp_path / "docs"))  # watched before on_serve, as docs_dir is
    observer = BothObservers()
    compat.watch_with(server, observer)
    server.watch(str(tmp_path / "snippets"))  # and after, as mkdocs.yml's watch list is
    assert server.observer is observer
    assert sorted(emitter.watch.path for emitter in observer.emitters) == [
        str(tmp_path / "docs"), str(tmp_path / "snippets")]
    assert sorted(emitter.watch.path for emitter in observer.native.emitters) == [
        str(tmp_path / "docs"), str(tmp_path / "snippets")]
    server.unwatch(str(tmp_path / "docs"))
    assert [emitter.watch.path for emitter in observer.native.emitters] == [str(tmp_path / "snippets")]


def test_mkdocs_serve_rebuilds_after_the_wait_given_it(tmp_path):
    from mkdocs.livereload import LiveReloadServer

    server = LiveReloadServer(builder=lambda: None, host="127.0.0.1", port=0, root=str(tmp_path))
    assert server.build_delay == 0.1  # MkDocs' own: the attribute set is the one it reads
    compat.rebuild_after(server, 0.03)
    assert server.build_delay == 0.03


def test_a_file_written_without_a_change_is_not_an_edit(tmp_path):
    (tmp_path / "page.md").write_text("# A page\n")
    observer = BothObservers(timeout=0.1)
    reports = watching(tmp_path, observer)
    try:
        with open(tmp_path / "page.md", "r+"):  # opened for writing and closed, as some tools do
            pass
        time.sleep(1.0)
    finally:
        stop(observer)
    assert reports.paths == []


def test_mkdocs_serve_watches_every_folder_the_pages_include_from():
    """An edit to a file a page includes (an example, ``includes/abbreviations.md``) rebuilds under
    serve; the engine's own folder (``docexec/graphs``, for the code chapter 01 shows) is left out."""
    from mkdocs.config import load_config

    from .conftest import ROOT

    config = load_config(str(ROOT / "mkdocs.yml"))
    watched = {Path(folder).resolve() for folder in config.watch} | {Path(config.docs_dir).resolve()}
    included = {(ROOT / folder).resolve() for folder in config.mdx_configs["pymdownx.snippets"]["base_path"]}
    engine = (ROOT / "docexec").resolve()
    assert {folder for folder in included if not folder.is_relative_to(engine)} <= watched
