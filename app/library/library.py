"""The library folder: the database, the imported PDFs, page renders and traces.

Layout of a library folder::

    library.db          SQLite (WAL): documents, pages, chunks, vectors, FTS indexes
    documents/<sha>.pdf the imported PDFs (copied, so renders work if the original moves)
    pages/              full-resolution page renders, made on demand
    traces/             one JSON record per question asked
    programs/           saved DSPy programs

Deleting the folder resets Lantern.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from app.library.images import PageImageCache
from app.library.models import DocumentInfo
from app.library.store import Store, StoreError

# Errors that mean "this folder cannot be written", not "this file is bad".
UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def writable_problem(folder: Path) -> str:
    """Why ``folder`` (or the folder it would be created in) cannot be written, as one
    sentence for the technician; empty when it can. Tries a real write: permission bits
    say nothing about a read-only mount, and an administrator may ignore them."""
    folder = Path(folder).expanduser()
    probe_dir = folder
    while not probe_dir.exists() and probe_dir != probe_dir.parent:
        probe_dir = probe_dir.parent
    targets = [probe_dir] + [d for d in (folder / "documents",) if d.is_dir()]
    for target in targets:
        try:
            fd, tmp = tempfile.mkstemp(dir=target, prefix=".write-test-")
            os.close(fd)
            os.unlink(tmp)
        except OSError as exc:
            return unwritable_message(folder, exc)
    db = folder / "library.db"
    if db.is_file() and not os.access(db, os.W_OK):
        return unwritable_message(folder, PermissionError(errno.EACCES, "Permission denied"))
    return ""


def unwritable_message(folder: Path, exc: OSError) -> str:
    reason = "it is on a read-only disk" if exc.errno == errno.EROFS else "permission denied"
    return (
        f"the library folder {folder} cannot be written ({reason}): make it writable,"
        " or choose another folder with --library"
    )


class Library:
    """A library folder and its store."""

    def __init__(self, root: Path, store: Store) -> None:
        self.root = root
        self.store = store
        self.images = PageImageCache(root)

    @classmethod
    def open(cls, root: Path) -> Library:
        root = Path(root).expanduser()
        store = Store.open(root)
        library = cls(root, store)
        library.remove_orphan_files()
        return library

    def close(self) -> None:
        self.store.close()

    @property
    def documents_dir(self) -> Path:
        return self.root / "documents"

    @property
    def traces_dir(self) -> Path:
        return self.root / "traces"

    @property
    def programs_dir(self) -> Path:
        return self.root / "programs"

    def pdf_path(self, doc: DocumentInfo | str) -> Path:
        sha = doc if isinstance(doc, str) else doc.sha256
        return self.documents_dir / f"{sha}.pdf"

    def keep_copy(self, data: bytes, sha256: str) -> Path:
        """Keep an imported PDF in the library atomically (before its rows commit).

        Takes the bytes that were hashed and read, not the source path: the original may
        have been moved, deleted or rewritten since.
        """
        target = self.pdf_path(sha256)
        self.documents_dir.mkdir(parents=True, exist_ok=True)
        self._mark_pending(sha256)
        if target.is_file():
            return target
        fd, tmp = tempfile.mkstemp(dir=self.documents_dir, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def _mark_pending(self, sha256: str) -> None:
        """Say this process is importing ``sha256``: another process opening the library
        before the rows commit must not take the copy for a killed import's leftover."""
        marker = self.documents_dir / f"{sha256}.{os.getpid()}.importing"
        marker.touch()

    def import_finished(self, sha256: str) -> None:
        """The import of ``sha256`` committed (or failed): drop this process's marker."""
        (self.documents_dir / f"{sha256}.{os.getpid()}.importing").unlink(missing_ok=True)

    def remove_orphan_files(self) -> list[Path]:
        """PDF copies whose import never committed (a crash or kill mid-import); a copy
        that a live process is still importing is left alone."""
        if not self.documents_dir.is_dir():
            return []
        known = {d.sha256 for d in self.store.list_documents()}
        busy = set()
        removed = []
        for marker in self.documents_dir.glob("*.importing"):
            sha, _, pid = marker.stem.partition(".")
            if pid.isdigit() and _alive(int(pid)):
                busy.add(sha)
            else:
                marker.unlink(missing_ok=True)
        for path in self.documents_dir.iterdir():
            orphan = path.suffix == ".pdf" and path.stem not in known | busy
            if (path.suffix == ".part" and not busy) or orphan:
                path.unlink(missing_ok=True)
                removed.append(path)
        return removed

    def remove(self, ref: int | str) -> DocumentInfo:
        """Remove a document (by id, file name, title or hash prefix) and its files."""
        doc = self.store.get_document(ref)
        if doc is None:
            raise StoreError(f"no document matches {ref!r}")
        self.store.remove_document(doc.id)
        self.pdf_path(doc).unlink(missing_ok=True)
        self.images.drop(doc.sha256)
        return doc

    def render_page(self, doc: DocumentInfo, page: int, zoom: float = 2.0) -> Path:
        """Path of a full-resolution render of a page, made on first request."""
        return self.images.get(self.pdf_path(doc), doc.sha256, page, zoom)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
