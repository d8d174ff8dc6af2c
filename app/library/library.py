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

import os
import tempfile
from pathlib import Path

from app.library.images import PageImageCache
from app.library.models import DocumentInfo
from app.library.store import Store, StoreError


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
        if target.is_file():
            return target
        self.documents_dir.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.documents_dir, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, target)
        except OSError:
            Path(tmp).unlink(missing_ok=True)
            raise
        return target

    def remove_orphan_files(self) -> list[Path]:
        """PDF copies whose import never committed (a crash or kill mid-import)."""
        if not self.documents_dir.is_dir():
            return []
        known = {d.sha256 for d in self.store.list_documents()}
        removed = []
        for path in self.documents_dir.iterdir():
            if path.suffix == ".part" or (path.suffix == ".pdf" and path.stem not in known):
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
