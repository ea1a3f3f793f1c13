"""Edits seen under ``mkdocs serve`` as they are written: the operating system's notice of a change
(inotify, FSEvents, ...) beside MkDocs' polling, each change reported once.

MkDocs looks for edits by listing and stat-ing the watched folders every half second (watchdog's
``PollingObserver``), which works on every file system, a network or container mount included,
but an edit then waits a quarter of a second on average before its rebuild begins. ``BothObservers``
keeps that polling and adds watchdog's native observer; a file in a state already reported by one
of them (the same modification time, size and inode) is not reported again by the other, so one
edit starts one rebuild and one reload of the page. Where the native observer cannot start (no
inotify watches left, say), one line says so and polling goes on alone.
"""

from __future__ import annotations

import logging
import os
import threading

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch
from watchdog.observers.polling import PollingObserver

log = logging.getLogger("mkdocs.plugins.docexec")

#: What a native observer reports: a file written, made, removed or moved (not a file opened or
#: read: the build reads every watched file, and each read would start another rebuild).
CHANGES = [FileCreatedEvent, FileModifiedEvent, FileClosedEvent, FileDeletedEvent, FileMovedEvent]


def file_state(path: str) -> tuple[int, int, int] | None:
    """What tells two versions of a file apart cheaply: modification time, size, inode (None: gone)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size, stat.st_ino


class ReportedStates:
    """The state of each file when a change to it was last passed on, shared by both observers."""

    def __init__(self) -> None:
        self._states: dict[str, tuple[int, int, int] | None] = {}
        self._lock = threading.Lock()

    def note_files(self, path: str, recursive: bool) -> None:
        """Note the state of each file at ``path`` (a file, or a folder: its files, and with
        ``recursive`` those of its folders too) as it is when the watching begins: a file written
        without a change later (opened for writing and closed) is then no edit."""
        if os.path.isfile(path):
            found = [path]
        else:
            found = []
            for base, folders, names in os.walk(path):
                found += [os.path.join(base, name) for name in names]
                if not recursive:
                    folders.clear()
        states = {file: file_state(file) for file in found}
        with self._lock:
            for file, state in states.items():
                self._states.setdefault(file, state)

    def is_new(self, event: FileSystemEvent) -> bool:
        """Whether ``event`` shows a file in a state not passed on before (and note it if so)."""
        paths = [os.fsdecode(event.src_path)] + ([os.fsdecode(event.dest_path)] if event.dest_path else [])
        states = {path: file_state(path) for path in paths}
        with self._lock:
            if all(path in self._states and self._states[path] == state for path, state in states.items()):
                return False
            self._states.update(states)
            return True


class OnceHandler(FileSystemEventHandler):
    """Passes an event on to ``handler`` unless the file's state was already passed on."""

    def __init__(self, handler: FileSystemEventHandler, states: ReportedStates) -> None:
        self.handler, self.states = handler, states

    def dispatch(self, event: FileSystemEvent) -> None:
        if event.is_directory or self.states.is_new(event):
            self.handler.dispatch(event)


class BothObservers(PollingObserver):
    """MkDocs' ``PollingObserver``, with watchdog's native observer scheduled on the same paths."""

    def __init__(self, native: Observer | None = None, timeout: float = 0.5) -> None:
        super().__init__(timeout=timeout)  # MkDocs' interval
        self.native = Observer() if native is None else native
        self.native_failed: str | None = None
        self.states = ReportedStates()
        self._native_watches: dict[ObservedWatch, ObservedWatch] = {}  # polling watch: native watch

    def schedule(self, event_handler, path, *, recursive=False, event_filter=None, follow_symlink=False):
        once = OnceHandler(event_handler, self.states)
        self.states.note_files(os.fsdecode(path), recursive)
        watch = super().schedule(once, path, recursive=recursive, event_filter=event_filter,
                                 follow_symlink=follow_symlink)
        if self.native_failed is None:
            try:
                self._native_watches[watch] = self.native.schedule(once, path, recursive=recursive,
                                                                   event_filter=CHANGES)
            except OSError as error:  # scheduled on a running observer: its watch could not be added
                self._give_up_native(error)
        return watch

    def unschedule(self, watch: ObservedWatch) -> None:
        super().unschedule(watch)
        native = self._native_watches.pop(watch, None)
        if native is not None and self.native_failed is None:
            self.native.unschedule(native)

    def start(self) -> None:
        super().start()
        try:
            self.native.start()
        except OSError as error:
            self._give_up_native(error)

    def _give_up_native(self, error: OSError) -> None:
        self.native_failed = f"{error.strerror or error}"
        log.info(f"docexec: edits are looked for every half second (the system's change notices could not "
                 f"be used: {self.native_failed})")
        self.native.unschedule_all()
        self._native_watches.clear()

    def stop(self) -> None:
        super().stop()
        if self.native.is_alive():
            self.native.stop()

    def join(self, timeout: float | None = None) -> None:
        super().join(timeout)
        if self.native.is_alive():
            self.native.join(timeout)
