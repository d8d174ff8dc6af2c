"""The import pipeline: PDF files in, one committed document each, progress streamed out.

``import_paths`` is a generator of small frozen events; ``import_blocking`` joins it.
Each document is written in one transaction, so a crash or kill mid-import leaves it
wholly there or not at all; a bad file yields a one-line reason and changes nothing.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import apsw
import numpy as np
import pymupdf

from app.config import Settings
from app.library.chunking import chunk_pages, embedding_text
from app.library.embedding import Embedder, make_embedder
from app.library.extract import RawPage, build_page, document_title, read_page
from app.library.images import RenderError, render_thumbnail
from app.library.import_events import READ_AGAIN, ImportEvent, ImportProgress, ImportResult
from app.library.layout import body_font_size, furniture_keys, group_lines_by_gap
from app.library.library import UNWRITABLE, Library, unwritable_message
from app.library.models import ChunkDraft, DocumentInfo, PageContent, TextLine
from app.library.ocr import OcrEngine, OcrLine, make_ocr_engine
from app.library.profile import build_profile
from app.library.revisions import (
    OnMatch,
    conflict_message,
    distinct_label,
    matching_manual,
    revision_of,
    title_match_warning,
)
from app.library.store import NewDocument, PageRecord
from app.library.symbols import searchable_text
from app.library.textquality import needs_ocr

# What an import reads of a PDF, by version: raise it when a change to reading pages,
# chunking them or titling a manual should reach the manuals already in a library
# (``Store.read_before``, ``Importer.reread``, ``python -m app reindex --stale``).
# 1: contents pages of unnumbered titles told, a title in a script the manual is not
# printed in, a cover's title its first large lines.
# 2: a label ending with a colon joined to the value beside it on its row.
# 3: a title whose number is set apart ("3." | "Switch:") no label.
EXTRACTION = 3


class ImportFailure(Exception):
    """A file cannot be imported; the message is the one-line reason shown to the user."""


class ImportCancelled(Exception):
    """The user stopped the import."""


@dataclass(slots=True)
class _Clock:
    """Rate-based ETA for one phase."""

    started: float = field(default_factory=time.perf_counter)

    def eta(self, done: int, total: int) -> float | None:
        if done <= 0:
            return None
        elapsed = time.perf_counter() - self.started
        return elapsed / done * (total - done)


@dataclass(slots=True)
class _Reading:
    """What reading one PDF gives, before it is written."""

    pages: list[PageContent]
    chunks: list[ChunkDraft]
    search_texts: list[str]
    vectors: np.ndarray
    thumbnails: list[bytes | None]
    warnings: list[str]
    title: str


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and every PDF inside given folders (sorted, recursive)."""
    out: list[Path] = []
    for path in paths:
        path = Path(path).expanduser()
        if path.is_dir():
            # Only regular files: a named pipe called x.pdf would block the read forever.
            found = (p for p in path.rglob("*") if p.suffix.lower() == ".pdf" and _regular(p))
            out.extend(sorted(found))
        else:
            out.append(path)
    return out


class Importer:
    """Imports PDFs into a library with the configured embedder and OCR engine."""

    def __init__(
        self,
        library: Library,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        ocr: OcrEngine | Literal["default"] | None = "default",
    ) -> None:
        self.library = library
        self.settings = settings or Settings()
        self.embedder = embedder or make_embedder(self.settings.embedder)
        self._ocr = ocr
        #: A ColQwen backend to use instead of the configured one (tests pass a fake).
        self.visual_backend: object | None = None
        #: A file matching a manual already there by name or title: refused with a reason
        #: ("ask"), a new revision of it ("revision"), or another manual ("keep-both").
        self.on_match: OnMatch = "ask"

    @property
    def ocr(self) -> OcrEngine | None:
        if self._ocr == "default":
            self._ocr = make_ocr_engine(self.settings.ocr_engine)
        return self._ocr

    def import_paths(
        self, paths: Iterable[Path], cancel: threading.Event | None = None
    ) -> Iterator[ImportEvent]:
        """Import every file (folders expanded); yields progress and one result per file."""
        yield from reembed(self.library, self.embedder)
        imported = False
        for path in expand_paths(paths):
            if cancel is not None and cancel.is_set():
                return
            started = time.perf_counter()
            try:
                result = yield from self._import_one(path, cancel)
            except ImportCancelled:
                yield ImportResult(str(path), "failed", "import stopped by the user")
                return
            except ImportFailure as exc:
                result = ImportResult(str(path), "failed", str(exc))
            except OSError as exc:
                reason = f"cannot be saved ({exc.strerror or exc})"
                if exc.errno in UNWRITABLE:
                    reason = unwritable_message(self.library.root, exc)
                result = ImportResult(str(path), "failed", reason)
            except apsw.ReadOnlyError as exc:
                reason = unwritable_message(self.library.root, OSError(errno.EROFS, str(exc)))
                result = ImportResult(str(path), "failed", reason)
            except Exception as exc:  # never let one file take the batch down
                result = ImportResult(str(path), "failed", f"unexpected error: {exc!r}")
            imported |= result.status == "imported"
            yield _with_time(result, time.perf_counter() - started)
        if imported and (self.settings.colqwen or self.visual_backend is not None):
            yield from self.embed_visual(cancel)

    def embed_visual(self, cancel: threading.Event | None = None) -> Iterator[ImportProgress]:
        """The resumable visual phase: ColQwen vectors for pages that lack them."""
        from app.library.visual_phase import embed_pages

        for done, total, eta, message in embed_pages(
            self.library, self.settings, self.visual_backend
        ):
            if cancel is not None and cancel.is_set():
                return
            yield ImportProgress("library", "visual embedding", done, total, eta, message)

    def _import_one(
        self, path: Path, cancel: threading.Event | None
    ) -> Generator[ImportEvent, None, ImportResult]:
        yield ImportProgress(str(path), "hashing", 0, 1)
        data = _read_file(path)
        sha = hashlib.sha256(data).hexdigest()
        existing = self.library.store.find_by_hash(sha)
        if existing is not None:
            return _already(path, existing)
        match = matching_manual(self.library.store, path.name)
        if match is not None and (same := self.library.store.find_by_hash(sha)) is not None:
            return _already(path, same)  # another import committed it since the first look
        if match is not None and self.on_match == "ask":
            raise ImportFailure(conflict_message(path.name, match))
        reading = yield from self._read_document(path, data, cancel)
        pages, thumbs, warnings, title = (
            reading.pages,
            reading.thumbnails,
            reading.warnings,
            reading.title,
        )
        if match is None:
            match = matching_manual(self.library.store, path.name, title)
            if match is not None and self.on_match == "ask":
                # A title alone is a weaker sign than a file name (scans of one manual,
                # generic headings): kept as another manual, with the choice said.
                warnings.append(title_match_warning(match))
                match = None
        as_revision = match is not None and self.on_match == "revision"
        yield ImportProgress(str(path), "saving", 0, 1)
        new = NewDocument(
            sha256=sha,
            file_name=path.name if as_revision else distinct_label(self.library.store, path.name),
            title=title,
            source_path=str(self.library.pdf_path(sha).relative_to(self.library.root)),
            pages=[_page_record(p, t) for p, t in zip(pages, thumbs, strict=True)],
            chunks=reading.chunks,
            chunk_search_texts=reading.search_texts,
            vectors=reading.vectors,
            profile=build_profile(title, path.name, pages),
            revision_of=match.manual_id if as_revision and match is not None else None,
            extraction=EXTRACTION,
        )
        try:
            self.library.keep_copy(data, sha)
            self.library.store.ensure_embedder(self.embedder.name, self.embedder.dim)
            doc_id = self.library.store.add_document(new)
        except apsw.ConstraintError:
            # Another import of the same manual (another window or process) committed
            # first: the manual is there, which is what was asked for.
            existing = self.library.store.find_by_hash(sha)
            if existing is None:
                raise
            return _already(path, existing)
        finally:
            self.library.import_finished(sha)
        yield ImportProgress(str(path), "saving", 1, 1)
        ocr_pages = sum(1 for p in pages if p.ocr)
        rev = revision_of(self.library.store, doc_id)
        note = f"{rev.label()} of {rev.title}" if rev is not None and rev.of > 1 else ""
        return ImportResult(
            str(path),
            "imported",
            note,
            doc_id,
            title,
            len(pages),
            ocr_pages,
            warnings=tuple(warnings),
        )

    def _read_document(
        self, path: Path, data: bytes, cancel: threading.Event | None
    ) -> Generator[ImportEvent, None, _Reading]:
        """Everything an import reads of a PDF: its pages (OCR'd where scanned), chunks,
        their vectors, page images and title."""
        doc = _open_pdf(path, data)
        with doc:
            raws = yield from self._read_pages(path, doc, cancel)
            raws = yield from self._ocr_pages(path, doc, raws, cancel)
            pages = _build_pages(raws)
            chunks = chunk_pages(
                pages, self.settings.chunk_chars, self.settings.chunk_overlap_lines
            )
            search_texts = [searchable_text(embedding_text(c)) for c in chunks]
            vectors = yield from self._embed(path, search_texts, cancel)
            thumbs, warnings = yield from self._thumbnails(path, doc, cancel)
            unread = [r.number for r in raws if not r.ocr and needs_ocr(r.text, r.image_coverage)]
            if unread:
                warnings.insert(
                    0,
                    f"{len(unread)} page(s) look scanned but OCR is off (setting ocr_engine);"
                    f" their text is not searchable: pages {_page_list(unread)}",
                )
            title = document_title(doc, raws[0] if raws else None, _readable(path.stem))
        return _Reading(pages, chunks, search_texts, vectors, thumbs, warnings, title)

    def reread(
        self, doc_id: int, cancel: threading.Event | None = None
    ) -> Generator[ImportEvent, None, ImportResult]:
        """Read a manual again from the library's copy of its PDF and put the new reading
        in place of the old (``Store.replace_content``): what a manual read by an older
        version of Lantern (``Store.read_before(EXTRACTION)``) needs to gain what reading
        has learnt since (contents pages told, titles...). Its id, name and revision stay;
        searches meanwhile read the old reading, which one transaction replaces."""
        store = self.library.store
        info = store.get_document(doc_id)
        if info is None:
            raise ImportFailure(f"no document {doc_id}")
        path = self.library.pdf_path(info)
        label = Path(info.file_name)
        yield ImportProgress(str(label), "hashing", 0, 1)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise ImportFailure(
                f"the library's copy of {info.file_name} is missing: import the PDF again"
            ) from None
        if hashlib.sha256(data).hexdigest() != info.sha256:
            raise ImportFailure(
                f"the library's copy of {info.file_name} has changed on disk: import it again"
            )
        # A library embedded with another embedder is re-embedded first, as before an import.
        yield from reembed(self.library, self.embedder)
        reading = yield from self._read_document(label, data, cancel)
        yield ImportProgress(str(label), "saving", 0, 1)
        store.ensure_embedder(self.embedder.name, self.embedder.dim)
        store.replace_content(
            doc_id,
            NewDocument(
                sha256=info.sha256,
                file_name=info.file_name,
                title=reading.title,
                source_path=str(path.relative_to(self.library.root)),
                pages=[
                    _page_record(p, t)
                    for p, t in zip(reading.pages, reading.thumbnails, strict=True)
                ],
                chunks=reading.chunks,
                chunk_search_texts=reading.search_texts,
                vectors=reading.vectors,
                profile=build_profile(reading.title, info.file_name, reading.pages),
                extraction=EXTRACTION,
            ),
        )
        yield ImportProgress(str(label), "saving", 1, 1)
        return ImportResult(
            str(label),
            "imported",
            READ_AGAIN,
            doc_id,
            reading.title,
            len(reading.pages),
            sum(1 for p in reading.pages if p.ocr),
            warnings=tuple(reading.warnings),
        )

    def _read_pages(
        self, path: Path, doc: pymupdf.Document, cancel: threading.Event | None
    ) -> Generator[ImportEvent, None, list[RawPage]]:
        raws: list[RawPage] = []
        clock = _Clock()
        total = doc.page_count
        for index in range(total):
            _check(cancel)
            try:
                raws.append(read_page(doc[index]))
            except Exception as exc:
                reason = f"page {index + 1} is damaged and cannot be read ({exc})"
                raise ImportFailure(reason) from None
            yield ImportProgress(
                str(path), "reading text", index + 1, total, clock.eta(index + 1, total)
            )
        return raws

    def _ocr_pages(
        self,
        path: Path,
        doc: pymupdf.Document,
        raws: list[RawPage],
        cancel: threading.Event | None,
    ) -> Generator[ImportEvent, None, list[RawPage]]:
        todo = [i for i, raw in enumerate(raws) if needs_ocr(raw.text, raw.image_coverage)]
        engine = self.ocr if todo else None
        if not todo or engine is None:
            return raws
        clock = _Clock()
        for n, index in enumerate(todo, start=1):
            _check(cancel)
            yield ImportProgress(
                str(path),
                "OCR",
                n - 1,
                len(todo),
                clock.eta(n - 1, len(todo)),
                f"page {index + 1}",
            )
            lines = engine.recognize(doc[index], self.settings.ocr_dpi)
            raws[index] = _ocr_raw(raws[index], lines)
        yield ImportProgress(str(path), "OCR", len(todo), len(todo), 0.0)
        return raws

    def _embed(
        self, path: Path, texts: list[str], cancel: threading.Event | None
    ) -> Generator[ImportEvent, None, np.ndarray]:
        parts: list[np.ndarray] = []
        done, clock = 0, _Clock()
        yield ImportProgress(str(path), "embedding", 0, len(texts))
        for batch in self.embedder.embed_batches(texts):
            _check(cancel)
            parts.append(batch)
            done += len(batch)
            yield ImportProgress(
                str(path), "embedding", done, len(texts), clock.eta(done, len(texts))
            )
        if not parts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.concatenate(parts)

    def _thumbnails(
        self, path: Path, doc: pymupdf.Document, cancel: threading.Event | None
    ) -> Generator[ImportEvent, None, tuple[list[bytes | None], list[str]]]:
        thumbs: list[bytes | None] = []
        warnings: list[str] = []
        clock, total = _Clock(), doc.page_count
        for index in range(total):
            _check(cancel)
            try:
                thumbs.append(render_thumbnail(doc[index], self.settings.thumbnail_width))
            except RenderError as exc:
                thumbs.append(None)
                warnings.append(str(exc))
            yield ImportProgress(
                str(path), "page images", index + 1, total, clock.eta(index + 1, total)
            )
        return thumbs, warnings


def follow(
    events: Generator[ImportEvent, None, ImportResult],
    on_event: Callable[[ImportEvent], None],
) -> ImportResult:
    """Run one file's import (or ``Importer.reread``) to its end, handing each event to
    ``on_event``; returns its result (its errors are raised)."""
    while True:
        try:
            on_event(next(events))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


def import_blocking(
    importer: Importer,
    paths: Iterable[Path],
    on_event: Callable[[ImportEvent], None] | None = None,
) -> list[ImportResult]:
    """Run an import to the end; returns one result per file."""
    results = []
    for event in importer.import_paths(paths):
        if on_event is not None:
            on_event(event)
        if isinstance(event, ImportResult):
            results.append(event)
    return results


def _page_list(numbers: list[int], limit: int = 8) -> str:
    shown = ", ".join(str(n) for n in numbers[:limit])
    return shown + (", …" if len(numbers) > limit else "")


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise ImportCancelled()


def _with_time(result: ImportResult, seconds: float) -> ImportResult:
    from dataclasses import replace

    return replace(result, seconds=round(seconds, 3))


def _already(path: Path, existing: DocumentInfo) -> ImportResult:
    return ImportResult(
        str(path),
        "skipped",
        f"already in the library as {existing.file_name}",
        existing.id,
        existing.title,
        existing.pages,
        existing.ocr_pages,
    )


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def _read_file(path: Path) -> bytes:
    """The file's bytes; anything but a regular file (a named pipe, a device, a socket)
    is refused without reading it, and opened without blocking in case it changed."""
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(path)
        if not stat.S_ISREG(mode):
            raise ImportFailure("not a regular file (a pipe, device or socket): skipped")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise ImportFailure("not a regular file (a pipe, device or socket): skipped")
            return fh.read()
    except FileNotFoundError:
        raise ImportFailure("file not found (moved or deleted?)") from None
    except IsADirectoryError:
        raise ImportFailure("is a folder, not a PDF") from None
    except OSError as exc:
        raise ImportFailure(f"cannot read the file ({exc.strerror or exc})") from None


def _open_pdf(path: Path, data: bytes) -> pymupdf.Document:
    """Open a PDF from bytes, turning every way it can be bad into a one-line reason."""
    if not data:
        raise ImportFailure("the file is empty")
    if b"%PDF-" not in data[:1024]:
        raise ImportFailure("not a PDF file")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise ImportFailure(f"damaged PDF that cannot be opened ({exc})") from None
    if doc.needs_pass or doc.is_encrypted:
        doc.close()
        raise ImportFailure("password-protected PDF: remove the password and import it again")
    if doc.page_count == 0:
        doc.close()
        raise ImportFailure("the PDF has no pages")
    if b"%%EOF" not in data[-4096:] and doc.is_repaired:
        doc.close()
        raise ImportFailure("truncated or damaged PDF (the end of the file is missing)")
    return doc


def _build_pages(raws: list[RawPage]) -> list[PageContent]:
    text_lines = [ln for raw in raws if not raw.ocr for ln in raw.lines]
    body = body_font_size(text_lines)
    furniture = furniture_keys([(raw.height, raw.lines) for raw in raws])
    return [build_page(raw, body, furniture) for raw in raws]


def _ocr_raw(raw: RawPage, lines: list[OcrLine]) -> RawPage:
    text_lines = [TextLine(ln.text, ln.box, 0.0, False) for ln in lines if ln.text.strip()]
    words = [w for ln in lines for w in ln.words]
    return RawPage(
        number=raw.number,
        width=raw.width,
        height=raw.height,
        groups=group_lines_by_gap(text_lines),
        tables=[],
        words=words,
        image_coverage=raw.image_coverage,
        ocr=True,
    )


def _page_record(page: PageContent, thumbnail: bytes | None) -> PageRecord:
    text = page.text
    return PageRecord(
        number=page.number,
        width=page.width,
        height=page.height,
        text=text,
        search_text=searchable_text(text),
        ocr=page.ocr,
        lines=page.lines,
        thumbnail=thumbnail,
    )


def reembed(library: Library, embedder: Embedder) -> Iterator[ImportProgress]:
    """Re-embed every chunk when the library was built with another embedder."""
    store = library.store
    if store.embedder_name() in (None, embedder.name) or store.chunk_count() == 0:
        return
    rows = store.all_chunk_texts()
    parts: list[np.ndarray] = []
    clock, done = _Clock(), 0
    for batch in embedder.embed_batches([text for _, text in rows]):
        parts.append(batch)
        done += len(batch)
        yield ImportProgress(
            "library",
            "embedding",
            done,
            len(rows),
            clock.eta(done, len(rows)),
            f"re-embedding with {embedder.name}",
        )
    store.replace_vectors([cid for cid, _ in rows], np.concatenate(parts), embedder.name)


def _readable(stem: str) -> str:
    """A file name as a title when the PDF has none: 'Ademco_685_Manual' -> 'Ademco 685 Manual'."""
    return " ".join(stem.replace("_", " ").split())
