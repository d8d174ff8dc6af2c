"""The worker's side of watched folders, run in the import lane (see ``work_lanes``):
catch up at start, then sync a folder whenever watchdog reports a change in it; imports
show in the window's import queue like dropped files."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from app.library import watch
from app.worker.library_messages import WatchRequest, WatchState
from app.worker.messages import ImportEvent, ImportQueued

log = logging.getLogger(__name__)


class WatchService:
    """Watched folders for one import lane (``lane``: its library, importer and sends)."""

    def __init__(self, lane: Any) -> None:
        self.lane = lane
        self.watcher: watch.FolderWatcher | None = None

    def handle(self, request: WatchRequest, cancel: threading.Event) -> None:
        store = self.lane.library.store
        message = ""
        if request.action == "start":
            self._start()
            self._sync(None, cancel)
        elif request.action == "add":
            try:
                folder = watch.add_folder(store, Path(request.path))
            except watch.WatchError as exc:
                self.lane.send(WatchState(self._folders(), self._missing(), str(exc)))
                return
            self._start()
            if self.watcher is not None:
                self.watcher.watch(folder)
            message = f"Watching {folder}"
            self._sync(folder, cancel)
        elif request.action == "remove":
            folder = Path(request.path).expanduser().resolve()
            watch.remove_folder(store, folder)
            if self.watcher is not None:
                self.watcher.unwatch(folder)
            message = f"No longer watching {folder}"
        elif request.action == "sync":
            self._sync(Path(request.path) if request.path else None, cancel)
        elif request.action == "prune":
            removed = watch.remove_missing(self.lane.library)
            message = f"Removed {len(removed)} manual(s) whose files are gone"
            self.lane._changed()
        self.lane.send(WatchState(self._folders(), self._missing(), message))

    def stop(self) -> None:
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None

    def _start(self) -> None:
        if self.watcher is not None:
            return
        folders = watch.folders(self.lane.library.store)
        if not folders:
            return
        self.watcher = watch.FolderWatcher(self._changed_on_disk)
        for folder in folders:
            self.watcher.watch(folder)
        self.watcher.start()

    def _changed_on_disk(self, folder: Path) -> None:
        # From watchdog's thread: queue the sync behind whatever the lane is doing.
        self.lane.enqueue(WatchRequest("sync", str(folder)))

    def _sync(self, only: Path | None, cancel: threading.Event) -> None:
        store = self.lane.library.store
        if not watch.folders(store):
            return  # no importer (nor embedder) is made for a library that watches nothing
        todo = [
            str(p)
            for folder in watch.folders(store)
            if only is None or folder == only
            for p in (*watch.changes(store, folder).new, *watch.changes(store, folder).changed)
        ]
        if todo:
            self.lane.send(ImportQueued(tuple(todo)))
        changed = False
        for event in watch.sync(self.lane.library, self.lane.importer(), only, cancel):
            if hasattr(event, "phase") and not self.lane.throttle.wanted(event):
                continue
            self.lane.send(ImportEvent(event))
            changed |= getattr(event, "status", "") == "imported"
        if changed:
            self.lane._changed()

    def _folders(self) -> tuple[str, ...]:
        return tuple(str(f) for f in watch.folders(self.lane.library.store))

    def _missing(self) -> tuple[str, ...]:
        return tuple(m.path for m in watch.missing(self.lane.library.store))
