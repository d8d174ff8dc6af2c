"""The import lane and the pages lane of the worker process (see ``lanes``).

Imports run in their own lane so a question asked meanwhile is answered at once; page
images have theirs so clicking a citation never waits behind an answer.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import apsw
import pymupdf

from app.library.importer import Importer, ImportProgress, ImportResult, expand_paths
from app.worker.lanes import Lane, library_state
from app.worker.library_messages import PackDone, PackRequest, WatchRequest
from app.worker.messages import (
    ImportEvent,
    ImportQueued,
    ImportRequest,
    ModelsListed,
    ModelsRequest,
    PageImage,
    Pixels,
    ReindexRequest,
    RemoveRequest,
    RenderRequest,
    RereadStale,
    Thumbnails,
    ThumbnailsRequest,
)
from app.worker.watch_lane import WatchService

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ProgressThrottle:
    """Passes an import's progress at most every ``interval`` seconds per file, but always
    its first and last event of each phase, so bars move smoothly without flooding."""

    interval: float
    last: dict[str, tuple[str, float]] = field(default_factory=dict)

    def wanted(self, event: ImportProgress) -> bool:
        phase, at = self.last.get(event.path, ("", 0.0))
        now = time.perf_counter()
        edge = event.phase != phase or event.done in (0, event.total)
        if edge or now - at >= self.interval:
            self.last[event.path] = (event.phase, now)
            return True
        return False


def decode(image: str | bytes) -> Pixels:
    """An image file (or PNG bytes) as RGB pixels, decoded here rather than in the window."""
    pix = pymupdf.Pixmap(image)
    if pix.alpha or pix.n != 3:
        pix = pymupdf.Pixmap(pymupdf.csRGB, pix, 0)
    return Pixels(pix.samples, pix.width, pix.height, pix.stride)


class ImportLane(Lane):
    """Imports, re-indexes and removes documents, one request at a time."""

    def __init__(self, settings: Any, send: Any, interval: float, on_change: Any) -> None:
        super().__init__("imports", settings, send)
        self.throttle = ProgressThrottle(interval)
        self.on_change = on_change
        self.cancels: list[threading.Event] = []
        self._importer: Importer | None = None
        self.watching = WatchService(self)

    def enqueue(self, request: Any) -> None:
        """Queue a request with its own cancel flag (``cancel_all`` sets every one)."""
        cancel = threading.Event()
        self.cancels.append(cancel)
        self.put((request, cancel))

    def cancel_all(self) -> None:
        for cancel in list(self.cancels):
            cancel.set()

    def importer(self) -> Importer:
        if self._importer is None:
            assert self.library is not None
            self._importer = Importer(self.library, self.settings)
        return self._importer

    def handle(self, request: Any) -> None:
        job, cancel = request
        try:
            if isinstance(job, ImportRequest):
                self.importer().on_match = job.on_match  # type: ignore[assignment]
                self._import([Path(p) for p in job.paths], cancel)
            elif isinstance(job, RemoveRequest):
                self._remove(job.document_id)
            elif isinstance(job, ReindexRequest):
                self._reread([job.document_id], cancel)
            elif isinstance(job, RereadStale):
                self._reread_stale(cancel)
            elif isinstance(job, PackRequest):
                self._pack(job)
            elif isinstance(job, WatchRequest):
                self.watching.handle(job, cancel)
            if not isinstance(job, RemoveRequest):
                self._index_lines(cancel)
        finally:
            self.cancels.remove(cancel)

    def _import(self, paths: list[Path], cancel: threading.Event) -> None:
        files = expand_paths(paths)
        self.send(ImportQueued(tuple(str(p) for p in files)))
        if cancel.is_set():
            for path in files:
                self.send(ImportEvent(ImportResult(str(path), "failed", "import cancelled")))
            return
        changed = False
        for event in self.importer().import_paths(files, cancel):
            if isinstance(event, ImportProgress) and not self.throttle.wanted(event):
                continue
            self.send(ImportEvent(event))
            if isinstance(event, ImportResult) and event.status == "imported":
                changed = True
                self._changed()
        if cancel.is_set() and not changed:
            self._changed()

    def _pack(self, request: PackRequest) -> None:
        """Export or import a pack; an import shows in the import queue like a PDF."""
        from app.library.packs import PackError, configured_embedder, export_pack, import_pack

        assert self.library is not None
        path = request.path
        if request.action == "import":
            self.send(ImportQueued((path,)))

        def progress(done: int, total: int, text: str) -> None:
            if request.action == "import":
                self.send(
                    ImportEvent(ImportProgress(path, "saving", done, max(total, 1), None, text))
                )

        try:
            if request.action == "export":
                docs = list(request.documents) or None
                report = export_pack(self.library, Path(path), docs, progress)  # type: ignore[arg-type]
                text = f"Exported {len(report.documents)} manual(s) to {report.path}"
            else:
                report = import_pack(
                    self.library, Path(path), configured_embedder(self.settings.embedder), progress
                )
                text = f"Imported {len(report.imported)} manual(s) from {Path(path).name}"
                if report.skipped:
                    text += f"; {len(report.skipped)} already there"
        except (PackError, OSError) as exc:
            if request.action == "import":
                self.send(ImportEvent(ImportResult(path, "failed", str(exc))))
            self.send(PackDone(request.action, path, "", str(exc)))
            return
        if request.action == "import":
            pages = sum(d.pages for d in self.library.store.list_documents()
                        if d.file_name in report.imported)  # fmt: skip
            status: Literal["imported", "skipped"] = "imported" if report.imported else "skipped"
            self.send(ImportEvent(ImportResult(path, status, text, None, "", pages)))
            self._changed()
        self.send(PackDone(request.action, path, text))

    def _remove(self, document_id: int) -> None:
        assert self.library is not None
        self.library.remove(document_id)
        self._changed()

    def _reread(self, ids: list[int], cancel: threading.Event) -> None:
        """Read manuals again from the library's copies, each in place: it keeps its id,
        name and revision, and searches read its old reading until the new one commits."""
        from app.library.importer import ImportCancelled, ImportFailure, follow

        assert self.library is not None
        docs = [d for i in ids if (d := self.library.store.get_document(i)) is not None]
        self.send(ImportQueued(tuple(d.file_name for d in docs)))
        for doc in docs:
            if cancel.is_set():
                self.send(ImportEvent(ImportResult(doc.file_name, "failed", "stopped by the user")))
                continue
            started = time.perf_counter()
            try:
                result = follow(self.importer().reread(doc.id, cancel), self._pass_on)
            except ImportCancelled:
                result = ImportResult(doc.file_name, "failed", "stopped by the user")
            except (ImportFailure, OSError, apsw.Error) as exc:
                result = ImportResult(doc.file_name, "failed", str(exc))
            except Exception as exc:  # never let one manual take the lane down
                log.exception("reading %s again failed", doc.file_name)
                result = ImportResult(doc.file_name, "failed", f"unexpected error: {exc!r}")
            result = replace(result, seconds=round(time.perf_counter() - started, 3))
            self.send(ImportEvent(result))
            if result.status == "imported":
                self._changed()

    def _pass_on(self, event: ImportProgress | ImportResult) -> None:
        if not isinstance(event, ImportProgress) or self.throttle.wanted(event):
            self.send(ImportEvent(event))

    def _reread_stale(self, cancel: threading.Event) -> None:
        """Read again the manuals an older version read (``Store.read_before``), one at a
        time; a request waiting goes first, and this job comes back after it."""
        from app.library.importer import EXTRACTION

        if self.library is None:  # it could not be opened: the window says why
            return
        try:
            stale = self.library.store.read_before(EXTRACTION)
        except apsw.Error as exc:  # a read-only library: its manuals stay as they are
            log.warning("manuals not read again: %s", exc)
            return
        # A manual whose copy is gone cannot be read again: said once by `reindex --stale`
        # and `list`, not as a failed row at every start.
        missing = [d for d in stale if not self.library.pdf_path(d).is_file()]
        for doc in missing:
            log.warning("%s: its copy in the library is missing, not read again", doc.file_name)
        stale = [d for d in stale if d not in missing]
        for doc in stale:
            if cancel.is_set():
                return
            if not self.requests.empty():
                self.enqueue(RereadStale())
                return
            self._reread([doc.id], cancel)

    def _index_lines(self, cancel: threading.Event) -> None:
        """Store the terms of the lines of chunks that have none: the manuals just
        imported, or every chunk of a library from before (``line_index``; the first job,
        at start, catches up). Searches read the lines of chunks without them. A job
        waiting in the queue goes first: the rest is stored after it."""
        from app.retrieval import line_index

        assert self.library is not None
        try:
            for event in line_index.fill_progress(self.library.store, cancel):
                if self.throttle.wanted(event):
                    self.send(ImportEvent(event))
                if not self.requests.empty():
                    return
        except (apsw.Error, OSError) as exc:  # a read-only library: searches read lines
            log.warning("line terms not stored: %s", exc)

    def _changed(self) -> None:
        assert self.library is not None
        self.on_change()
        self.send(library_state(self.library))


class PagesLane(Lane):
    """Page renders, thumbnails and the models list: quick reads, never behind an answer."""

    def handle(self, request: Any) -> None:
        if isinstance(request, RenderRequest):
            self.send(self._render(request))
        elif isinstance(request, ThumbnailsRequest):
            self.send(self._thumbnails(request))
        elif isinstance(request, ModelsRequest):
            self.send(self._models())
        elif request == "library":
            assert self.library is not None
            self.send(library_state(self.library))

    def _render(self, request: RenderRequest) -> PageImage:
        assert self.library is not None
        doc = self.library.store.get_document(request.document)
        if doc is None:
            return PageImage(request.document, request.page, request.zoom, "", 0, 0, 0,
                             error=f"{request.document} is not in the library")  # fmt: skip
        size = self.library.store.page_size(doc.id, request.page) or (0.0, 0.0)
        try:
            path = str(self.library.render_page(doc, request.page, request.zoom))
            pixels, error = decode(path), ""
        except Exception as exc:
            path, pixels, error = "", None, str(exc)
        return PageImage(
            request.document, request.page, request.zoom, path, size[0], size[1],
            doc.pages, doc.title, error, pixels,
        )  # fmt: skip

    def _thumbnails(self, request: ThumbnailsRequest) -> Thumbnails:
        assert self.library is not None
        images = []
        for document, page in request.pages:
            doc = self.library.store.get_document(document)
            data = self.library.store.thumbnail(doc.id, page) if doc else None
            if data:
                images.append((document, page, decode(data)))
        return Thumbnails(tuple(images))

    def _models(self) -> ModelsListed:
        from app.runtime.download import list_models
        from app.runtime.registry import memory_use

        try:
            memory = memory_use(self.settings).describe()
            return ModelsListed(tuple(list_models(self.settings)), memory=memory)
        except Exception as exc:
            return ModelsListed((), f"cannot list models: {exc}")
