"""Watched folders: a shop's shared folder of manuals that Lantern keeps up with.

The folders and what was last seen of each PDF in them (size, modification time, the
document it became) are kept in the library, so the watch survives restarts: ``sync``
compares each folder with that record and imports what is new or changed (a changed file
is its manual's newer revision), and flags files that are gone (``missing_since``)
without deleting their manuals; ``remove_missing`` does that once the technician
confirms. ``FolderWatcher`` runs ``sync`` again when the platform reports a change
(watchdog: FSEvents on macOS, inotify on Linux), after a short quiet period so a file
being copied is read once it is complete.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.library.import_events import ImportEvent, ImportResult
from app.library.library import Library
from app.library.store import Store

log = logging.getLogger(__name__)


class WatchError(Exception):
    """A folder cannot be watched; the message is the one line shown to the user."""


@dataclass(frozen=True, slots=True)
class Missing:
    """A watched file that is gone from its folder; its manual is still in the library."""

    path: str
    document_id: int | None
    since: str


@dataclass(frozen=True, slots=True)
class Changes:
    """What differs between a folder on disk and what Lantern last saw of it."""

    new: tuple[Path, ...] = ()
    changed: tuple[Path, ...] = ()
    removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.new or self.changed or self.removed)


# ---- the record in the library -------------------------------------------------------------
def add_folder(store: Store, folder: Path) -> Path:
    folder = folder.expanduser().resolve()
    if not folder.is_dir():
        raise WatchError(f"{folder} is not a folder")
    with store.transaction() as db:
        db.execute(
            "INSERT OR IGNORE INTO watched_folders(path, added_at)"
            " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ','now'))",
            (str(folder),),
        )
    return folder


def remove_folder(store: Store, folder: Path) -> bool:
    """Stop watching a folder (its manuals stay in the library)."""
    with store.transaction() as db:
        db.execute(
            "DELETE FROM watched_folders WHERE path = ?", (str(folder.expanduser().resolve()),)
        )
        return bool(db.changes())


def folders(store: Store) -> list[Path]:
    return [Path(r[0]) for r in store.db.execute("SELECT path FROM watched_folders ORDER BY id")]


def missing(store: Store) -> list[Missing]:
    """Watched files gone from their folders, with the manuals they became."""
    rows = store.db.execute(
        "SELECT path, document_id, missing_since FROM watched_files"
        " WHERE missing_since IS NOT NULL ORDER BY path"
    )
    return [Missing(*row) for row in rows]


def changes(store: Store, folder: Path) -> Changes:
    """New, changed and removed PDFs of one watched folder since it was last synced."""
    seen = {
        r[0]: (r[1], r[2], r[3])
        for r in store.db.execute(
            "SELECT f.path, f.size, f.mtime_ns, f.missing_since FROM watched_files f"
            " JOIN watched_folders w ON w.id = f.folder_id WHERE w.path = ?",
            (str(folder),),
        )
    }
    on_disk = _pdfs(folder)
    new, changed = [], []
    for path, (size, mtime) in on_disk.items():
        before = seen.get(str(path))
        if before is None:
            new.append(path)
        elif (before[0], before[1]) != (size, mtime) or before[2] is not None:
            changed.append(path)
    removed = [p for p, state in seen.items() if Path(p) not in on_disk and state[2] is None]
    return Changes(tuple(new), tuple(changed), tuple(sorted(removed)))


def _pdfs(folder: Path) -> dict[Path, tuple[int, int]]:
    found: dict[Path, tuple[int, int]] = {}
    if not folder.is_dir():
        return found
    for path in sorted(folder.rglob("*")):
        if path.suffix.lower() == ".pdf" and path.is_file():
            stat = path.stat()
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def _record(store: Store, folder: Path, path: Path, document_id: int | None) -> None:
    stat = path.stat()
    with store.transaction() as db:
        db.execute(
            "INSERT OR REPLACE INTO watched_files(path, folder_id, size, mtime_ns, document_id,"
            " missing_since) SELECT ?, id, ?, ?, ?, NULL FROM watched_folders WHERE path = ?",
            (str(path), stat.st_size, stat.st_mtime_ns, document_id, str(folder)),
        )


def _flag_missing(store: Store, paths: Iterable[str]) -> None:
    with store.transaction() as db:
        for path in paths:
            db.execute(
                "UPDATE watched_files SET missing_since = strftime('%Y-%m-%dT%H:%M:%SZ','now')"
                " WHERE path = ? AND missing_since IS NULL",
                (path,),
            )


# ---- catching up -------------------------------------------------------------------------
def sync(
    library: Library,
    importer: Any,
    only: Path | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[ImportEvent]:
    """Bring the library up to date with the watched folders (or ``only`` one): import
    new and changed PDFs with the usual progress events (a changed file, or one named like
    a manual there, becomes its newer revision) and flag removed ones."""
    store = library.store
    for folder in folders(store):
        if only is not None and folder != only:
            continue
        if cancel is not None and cancel.is_set():
            return
        found = changes(store, folder)
        if found.removed:
            _flag_missing(store, found.removed)
        todo = [*found.new, *found.changed]
        if not todo:
            continue
        previous, importer.on_match = importer.on_match, "revision"
        try:
            for event in importer.import_paths(todo, cancel):
                if isinstance(event, ImportResult) and event.status != "failed":
                    path = Path(event.path)
                    if path.is_file():
                        _record(store, folder, path, event.document_id)
                yield event
        finally:
            importer.on_match = previous


def remove_missing(library: Library) -> list[str]:
    """Remove from the library the manuals whose watched files are gone (after the
    technician confirmed); returns their file names. A manual still in use by another
    watched file is kept."""
    store = library.store
    removed = []
    for gone in missing(store):
        in_use = store.db.execute(
            "SELECT 1 FROM watched_files WHERE document_id = ? AND missing_since IS NULL",
            (gone.document_id,),
        ).fetchone()
        doc = store.get_document(gone.document_id) if gone.document_id is not None else None
        if doc is not None and not in_use:
            library.remove(doc.id)
            removed.append(doc.file_name)
        with store.transaction() as db:
            db.execute("DELETE FROM watched_files WHERE path = ?", (gone.path,))
    return removed


# ---- watching ----------------------------------------------------------------------------
class FolderWatcher:
    """Calls ``on_change(folder)`` when PDFs in a watched folder are added, changed, moved
    or deleted, once things have been quiet for ``settle`` seconds."""

    def __init__(self, on_change: Callable[[Path], None], settle: float = 2.0) -> None:
        from watchdog.observers import Observer

        self.on_change = on_change
        self.settle = settle
        self._observer = Observer()
        self._observer.daemon = True
        self._timers: dict[Path, threading.Timer] = {}
        self._lock = threading.Lock()
        self._watched: dict[Path, Any] = {}

    def start(self) -> None:
        self._observer.start()

    def stop(self) -> None:
        with self._lock:
            for timer in self._timers.values():
                timer.cancel()
            self._timers.clear()
        self._observer.stop()
        self._observer.join(timeout=5)

    def watch(self, folder: Path) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler

        if folder in self._watched or not folder.is_dir():
            return
        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                paths = [event.src_path, getattr(event, "dest_path", "")]
                if any(str(p).lower().endswith(".pdf") for p in paths if p):
                    watcher._soon(folder)

        self._watched[folder] = self._observer.schedule(Handler(), str(folder), recursive=True)

    def unwatch(self, folder: Path) -> None:
        watch = self._watched.pop(folder, None)
        if watch is not None:
            self._observer.unschedule(watch)

    def _soon(self, folder: Path) -> None:
        # Restarted by every event: a file being copied fires many; one sync follows.
        with self._lock:
            timer = self._timers.pop(folder, None)
            if timer is not None:
                timer.cancel()
            timer = threading.Timer(self.settle, self._fire, args=(folder,))
            timer.daemon = True
            self._timers[folder] = timer
            timer.start()

    def _fire(self, folder: Path) -> None:
        with self._lock:
            self._timers.pop(folder, None)
        try:
            self.on_change(folder)
        except Exception:  # a failed sync must not stop the watching
            log.exception("syncing the watched folder %s failed", folder)
