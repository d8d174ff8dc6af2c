"""The library's SQLite store: documents, pages, chunks, vectors and full-text indexes.

Opened through apsw, because Python's stdlib ``sqlite3`` on some builds cannot load
extensions and sqlite-vec is one. WAL mode; one transaction per document so a crash
leaves each document wholly there or not at all.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import apsw
import numpy as np
import orjson
import sqlite_vec

from app.library.migrations import apply_migrations
from app.library.models import (
    ChunkDraft,
    DocumentInfo,
    ManualProfile,
    StoredChunk,
    TextLine,
)

DB_NAME = "library.db"


class StoreError(Exception):
    """The library database cannot be opened or used."""


class LibraryDamaged(StoreError):
    """The library database is damaged (SQLite's quick check fails, or it is not a
    database at all): answers from it could be silently wrong, so it is not used."""

    def __init__(self, path: Path, problems: Sequence[str]) -> None:
        self.path = path
        lines = [ln.strip() for p in problems for ln in str(p).splitlines()]
        self.problems = tuple(ln for ln in lines if ln and not ln.startswith("***"))
        detail = self.problems[0] if self.problems else "unreadable"
        more = f", and {len(self.problems) - 1} more problems" if len(self.problems) > 1 else ""
        super().__init__(f"the library database {path} is damaged ({detail}{more})")


class LibraryReadOnly(StoreError):
    """The library folder or its database cannot be written."""

    def __init__(self, folder: Path, reason: str) -> None:
        self.folder = folder
        super().__init__(
            f"the library folder {folder} cannot be written ({reason}): make it writable,"
            " or choose another folder with --library"
        )


@dataclass(slots=True)
class PageRecord:
    """One page as written at import."""

    number: int
    width: float
    height: float
    text: str
    search_text: str
    ocr: bool
    lines: Sequence[TextLine]
    thumbnail: bytes | None = None


@dataclass(slots=True)
class NewDocument:
    """Everything an import writes for one document, in one transaction."""

    sha256: str
    file_name: str
    title: str
    source_path: str
    pages: list[PageRecord]
    chunks: list[ChunkDraft]
    chunk_search_texts: list[str]
    vectors: np.ndarray  # (len(chunks), dim) float32, L2-normalised
    profile: ManualProfile = field(default_factory=ManualProfile)
    revision_of: int | None = None
    """The manual (``documents.manual_id``) this is a newer revision of; None: a new manual."""
    extraction: int = 0
    """The reading of PDFs that wrote it (``importer.EXTRACTION``)."""


def _check_parts(doc: NewDocument) -> None:
    if len(doc.chunks) != len(doc.vectors) or len(doc.chunks) != len(doc.chunk_search_texts):
        raise StoreError("chunks, search texts and vectors differ in length")


def revision_label(file_name: str, revision: int) -> str:
    """The label of an older revision: 'Guide.pdf', revision 1 -> 'Guide (rev 1).pdf'."""
    path = Path(file_name)
    return f"{path.stem} (rev {revision}){path.suffix}"


def lines_to_json(lines: Sequence[TextLine]) -> str:
    return json.dumps(
        [[ln.text, [round(v, 2) for v in ln.box], round(ln.size, 2), ln.bold] for ln in lines],
        ensure_ascii=False,
    )


def lines_from_json(raw: str) -> tuple[TextLine, ...]:
    """Stored lines (with orjson: a search decodes some 600 at a time)."""
    return tuple(
        TextLine(text, (box[0], box[1], box[2], box[3]), size, bool(bold))
        for text, box, size, bold in orjson.loads(raw)
    )


class Store:
    """A library database. Safe to share between threads (apsw serialises calls)."""

    def __init__(self, db: apsw.Connection, path: Path | None) -> None:
        self.db = db
        self.path = path
        self._lock = threading.RLock()

    # ---- opening -------------------------------------------------------------------
    @classmethod
    def open(cls, library_dir: Path) -> Store:
        """Open (creating if needed) the library in ``library_dir``."""
        try:
            library_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create library folder {library_dir}: {exc}") from exc
        path = library_dir / DB_NAME
        try:
            db = apsw.Connection(str(path))
        except apsw.Error as exc:
            raise StoreError(f"cannot open {path}: {exc}") from exc
        store = cls(db, path)
        try:
            store._check_sound(path)
            store._configure(wal=True)
        except (apsw.ReadOnlyError, apsw.CantOpenError) as exc:
            db.close()
            raise LibraryReadOnly(library_dir, str(exc)) from exc
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            db.close()
            raise LibraryDamaged(path, [str(exc)]) from exc
        except apsw.Error as exc:  # e.g. a foreign file named library.db
            db.close()
            raise StoreError(f"cannot open {path}: {exc}") from exc
        except StoreError:
            db.close()
            raise
        return store

    def _check_sound(self, path: Path) -> None:
        """SQLite's quick check (b-tree structure, records and index entries, without
        the slower cross-checks of ``integrity_check``): a damaged file is refused here
        instead of answering "the manuals don't say" from half an index."""
        self.db.set_busy_timeout(10_000)  # another process may be switching it to WAL
        rows = [str(r[0]) for r in self.db.execute("PRAGMA quick_check(10)")]
        if rows != ["ok"]:
            raise LibraryDamaged(path, rows)

    @classmethod
    def memory(cls) -> Store:
        """An in-memory store, for tests."""
        store = cls(apsw.Connection(":memory:"), None)
        store._configure(wal=False)
        return store

    def _configure(self, wal: bool) -> None:
        self.db.set_busy_timeout(10_000)
        self.db.enable_load_extension(True)
        self.db.load_extension(sqlite_vec.loadable_path())
        self.db.enable_load_extension(False)
        if wal:
            self._set_wal()
            self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        try:
            apply_migrations(self.db)
        except apsw.Error as exc:
            raise StoreError(f"cannot migrate library database: {exc}") from exc

    def _set_wal(self, attempts: int = 100) -> None:
        """Switch a new database to WAL. Changing the journal mode answers "database is
        locked" at once, without the busy timeout, while another connection opening the
        same new library holds it, so it is tried again for a few seconds."""
        for attempt in range(attempts):
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                return
            except apsw.BusyError:
                if attempt == attempts - 1:
                    raise
                time.sleep(0.05)

    def close(self) -> None:
        self.db.close()

    @property
    def library_dir(self) -> Path | None:
        return self.path.parent if self.path else None

    @contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        """A write transaction: everything inside commits together or not at all."""
        with self._lock, self.db:
            yield self.db

    # ---- meta ------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def schema_version(self) -> int:
        row = self.db.execute("SELECT MAX(number) FROM migrations").fetchone()
        return int(row[0] or 0) if row else 0

    # ---- documents -------------------------------------------------------------------
    def find_by_hash(self, sha256: str) -> DocumentInfo | None:
        rows = self._documents("WHERE sha256 = ?", (sha256,))
        return rows[0] if rows else None

    def list_documents(self) -> list[DocumentInfo]:
        return self._documents("ORDER BY id", ())

    def get_document(self, ref: int | str) -> DocumentInfo | None:
        """A document by id, sha256 prefix (>= 8 chars), file name or title."""
        if isinstance(ref, int) or (isinstance(ref, str) and ref.isdigit()):
            rows = self._documents("WHERE id = ?", (int(ref),))
        else:
            rows = self._documents(
                "WHERE file_name = ? OR title = ? OR (length(?) >= 8 AND sha256 LIKE ? || '%')",
                (ref, ref, ref, ref),
            )
        if len(rows) > 1:  # a label shared by revisions of one manual: the newest
            current = set(self.current_revision_ids())
            rows = [r for r in rows if r.id in current]
        return rows[0] if len(rows) == 1 else None

    def current_revision_ids(self) -> list[int]:
        """The newest revision of every manual (what answers by default), by id."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM documents d WHERE NOT EXISTS (SELECT 1 FROM documents n"
                " WHERE n.manual_id = d.manual_id AND n.revision > d.revision) ORDER BY id"
            )
        ]

    def _documents(self, where: str, args: tuple[object, ...]) -> list[DocumentInfo]:
        sql = (
            "SELECT id, sha256, file_name, title, page_count, ocr_pages, imported_at, profile"
            f" FROM documents {where}"
        )
        return [
            DocumentInfo(
                id=r[0],
                sha256=r[1],
                file_name=r[2],
                title=r[3],
                pages=r[4],
                ocr_pages=r[5],
                imported_at=r[6],
                profile=ManualProfile.from_dict(json.loads(r[7] or "{}")),
            )
            for r in self.db.execute(sql, args)
        ]

    def add_document(self, doc: NewDocument) -> int:
        """Write a whole document in one transaction; returns its id."""
        _check_parts(doc)
        with self.transaction() as db:
            db.execute(
                "INSERT INTO documents(sha256, file_name, title, page_count, ocr_pages,"
                " imported_at, profile, source_path, manual_id, revision, extraction)"
                " VALUES (?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ','now'), ?, ?, ?,"
                " (SELECT COALESCE(MAX(revision), 0) + 1 FROM documents WHERE manual_id = ?), ?)",
                (
                    doc.sha256,
                    doc.file_name,
                    doc.title,
                    len(doc.pages),
                    sum(1 for p in doc.pages if p.ocr),
                    json.dumps(doc.profile.to_dict(), ensure_ascii=False),
                    doc.source_path,
                    doc.revision_of,
                    doc.revision_of,
                    doc.extraction,
                ),
            )
            doc_id = int(db.last_insert_rowid())
            if doc.revision_of is not None:
                self._relabel_older(db, doc.revision_of, doc_id, doc.file_name)
            self._insert_pages(db, doc_id, doc.pages)
            self._insert_chunks(db, doc_id, doc)
        return doc_id

    def _relabel_older(self, db: apsw.Connection, manual_id: int, new_id: int, name: str) -> None:
        """Older revisions filed under the new one's name become 'Name (rev 1).pdf', so a
        file name still names one document (citations, page previews, ``remove``)."""
        rows = db.execute(
            "SELECT id, revision FROM documents WHERE manual_id = ? AND id != ? AND file_name = ?",
            (manual_id, new_id, name),
        ).fetchall()
        for old_id, revision in rows:
            label = revision_label(name, int(revision))  # type: ignore[arg-type]
            db.execute("UPDATE documents SET file_name = ? WHERE id = ?", (label, old_id))

    def _insert_pages(self, db: apsw.Connection, doc_id: int, pages: list[PageRecord]) -> None:
        for page in pages:
            db.execute(
                "INSERT INTO pages(document_id, number, width, height, text, ocr, lines, thumbnail)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    doc_id,
                    page.number,
                    page.width,
                    page.height,
                    page.text,
                    int(page.ocr),
                    lines_to_json(page.lines),
                    page.thumbnail,
                ),
            )
            db.execute(
                "INSERT INTO pages_fts(rowid, text) VALUES (?, ?)",
                (db.last_insert_rowid(), page.search_text),
            )

    def _insert_chunks(self, db: apsw.Connection, doc_id: int, doc: NewDocument) -> None:
        vectors = np.ascontiguousarray(doc.vectors, dtype=np.float32)
        if len(doc.chunks):
            self.ensure_vector_index(vectors.shape[1])
        for seq, (chunk, search_text, vec) in enumerate(
            zip(doc.chunks, doc.chunk_search_texts, vectors, strict=True)
        ):
            db.execute(
                "INSERT INTO chunks(document_id, page, seq, kind, heading, text, search_text,"
                " lines) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    doc_id,
                    chunk.page,
                    seq,
                    chunk.kind,
                    chunk.heading,
                    chunk.text,
                    search_text,
                    lines_to_json(chunk.lines),
                ),
            )
            chunk_id = db.last_insert_rowid()
            self._insert_vector(db, chunk_id, vec)

    def _insert_vector(self, db: apsw.Connection, chunk_id: int, vec: np.ndarray) -> None:
        blob = vec.tobytes()
        db.execute("INSERT INTO chunk_vectors(chunk_id, embedding) VALUES (?, ?)", (chunk_id, blob))
        db.execute("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)", (chunk_id, blob))
        db.execute(
            "INSERT INTO vec_chunks_bits(rowid, embedding) VALUES (?, vec_quantize_binary(?))",
            (chunk_id, blob),
        )

    def read_before(self, extraction: int) -> list[DocumentInfo]:
        """The documents an older reading of PDFs wrote (``NewDocument.extraction``)."""
        return self._documents("WHERE extraction < ? ORDER BY id", (extraction,))

    def replace_content(self, doc_id: int, doc: NewDocument) -> None:
        """Put a document's new reading in place of its old one, in one transaction: its
        title, profile, pages and chunks. Its id, file name, place among its revisions and
        its pages' visual vectors stay (a page keeps its row; the same PDF has the same
        pages), so citations, conversations and feedback still point at it. Its import
        time is now: what searches keep of it is read again."""
        _check_parts(doc)
        with self.transaction() as db:
            db.execute(
                "UPDATE documents SET title = ?, page_count = ?, ocr_pages = ?, profile = ?,"
                " extraction = ?, imported_at = strftime('%Y-%m-%dT%H:%M:%SZ','now')"
                " WHERE id = ?",
                (
                    doc.title,
                    len(doc.pages),
                    sum(1 for p in doc.pages if p.ocr),
                    json.dumps(doc.profile.to_dict(), ensure_ascii=False),
                    doc.extraction,
                    doc_id,
                ),
            )
            if not db.changes():
                raise StoreError(f"no document {doc_id}")
            self._delete_chunks(db, doc_id)
            old = {
                int(r[0]): int(r[1])
                for r in db.execute("SELECT number, id FROM pages WHERE document_id = ?", (doc_id,))
            }
            for page in doc.pages:
                page_id = old.pop(page.number, None)
                if page_id is None:
                    self._insert_pages(db, doc_id, [page])
                    continue
                db.execute(
                    "UPDATE pages SET width = ?, height = ?, text = ?, ocr = ?, lines = ?,"
                    " thumbnail = ? WHERE id = ?",
                    (
                        page.width,
                        page.height,
                        page.text,
                        int(page.ocr),
                        lines_to_json(page.lines),
                        page.thumbnail,
                        page_id,
                    ),
                )
                db.execute("DELETE FROM pages_fts WHERE rowid = ?", (page_id,))
                db.execute(
                    "INSERT INTO pages_fts(rowid, text) VALUES (?, ?)", (page_id, page.search_text)
                )
            for page_id in old.values():
                db.execute("DELETE FROM pages WHERE id = ?", (page_id,))
            self._insert_chunks(db, doc_id, doc)

    def _delete_chunks(self, db: apsw.Connection, doc_id: int) -> None:
        """A document's chunks and their vectors (full text and line terms by trigger)."""
        if self._has_vector_index():
            rows = db.execute("SELECT id FROM chunks WHERE document_id = ?", (doc_id,))
            for cid in [r[0] for r in rows]:
                db.execute("DELETE FROM vec_chunks WHERE rowid = ?", (cid,))
                db.execute("DELETE FROM vec_chunks_bits WHERE rowid = ?", (cid,))
        db.execute("DELETE FROM chunks WHERE document_id = ?", (doc_id,))

    def remove_document(self, doc_id: int) -> bool:
        """Delete a document and everything derived from it. True if it existed."""
        with self.transaction() as db:
            row = db.execute(
                "SELECT manual_id, file_name FROM documents WHERE id = ?", (doc_id,)
            ).fetchone()
            self._delete_chunks(db, doc_id)
            db.execute("DELETE FROM pages WHERE document_id = ?", (doc_id,))
            db.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
            existed = bool(db.changes())
            if row is not None:
                self._relabel_newest(db, int(row[0] or doc_id), str(row[1]))
            return existed

    def _relabel_newest(self, db: apsw.Connection, manual_id: int, name: str) -> None:
        """After the newest revision is removed, the one that answers now takes back the
        manual's file name ('Guide (rev 1).pdf' -> 'Guide.pdf')."""
        newest = db.execute(
            "SELECT id, revision, file_name FROM documents WHERE manual_id = ?"
            " ORDER BY revision DESC LIMIT 1",
            (manual_id,),
        ).fetchone()
        if newest is not None and newest[2] == revision_label(name, int(newest[1])):  # type: ignore[arg-type]
            db.execute("UPDATE documents SET file_name = ? WHERE id = ?", (name, newest[0]))

    # ---- vector index ------------------------------------------------------------------
    def embedder_name(self) -> str | None:
        return self.get_meta("embedder")

    def ensure_embedder(self, name: str, dim: int) -> None:
        """Record the embedder on first use; refuse vectors from a different one."""
        current = self.embedder_name()
        if current is None:
            self.set_meta("embedder", name)
        elif current != name and self.chunk_count():
            raise StoreError(
                f"the library was embedded with {current}, not {name}: re-embed it first"
            )
        else:
            self.set_meta("embedder", name)
        self.ensure_vector_index(dim)

    def vector_dim(self) -> int | None:
        raw = self.get_meta("vector_dim")
        return int(raw) if raw else None

    def _has_vector_index(self) -> bool:
        row = self.db.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_chunks'").fetchone()
        return row is not None

    def ensure_vector_index(self, dim: int) -> None:
        """Create the sqlite-vec indexes for ``dim``-dimensional vectors if missing."""
        current = self.vector_dim()
        if current == dim and self._has_vector_index():
            return
        if current is not None and current != dim:
            raise StoreError(
                f"the library's vectors have {current} dimensions, not {dim}: re-embed it first"
            )
        # IF NOT EXISTS: two imports into a new library may both find the index missing;
        # the second to take the write lock finds it made (same dimension, checked above).
        with self.transaction() as db:
            db.execute(
                f"CREATE VIRTUAL TABLE IF NOT EXISTS vec_chunks USING vec0(embedding float[{dim}])"
            )
            db.execute(
                "CREATE VIRTUAL TABLE IF NOT EXISTS vec_chunks_bits"
                f" USING vec0(embedding bit[{dim}])"
            )
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('vector_dim', ?)", (str(dim),)
            )

    def replace_vectors(self, ids: Sequence[int], vectors: np.ndarray, embedder: str) -> None:
        """Rebuild every vector (after the embedder changed), in one transaction."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('embedder', ?)", (embedder,)
            )
            db.execute("DROP TABLE IF EXISTS vec_chunks")
            db.execute("DROP TABLE IF EXISTS vec_chunks_bits")
            db.execute("DELETE FROM meta WHERE key = 'vector_dim'")
            db.execute("DELETE FROM chunk_vectors")
            if len(ids):
                dim = vectors.shape[1]
                db.execute(f"CREATE VIRTUAL TABLE vec_chunks USING vec0(embedding float[{dim}])")
                db.execute(f"CREATE VIRTUAL TABLE vec_chunks_bits USING vec0(embedding bit[{dim}])")
                db.execute("INSERT INTO meta(key, value) VALUES ('vector_dim', ?)", (str(dim),))
                for cid, vec in zip(ids, vectors, strict=True):
                    self._insert_vector(db, int(cid), vec)

    # ---- reading -----------------------------------------------------------------------
    def chunk_count(self) -> int:
        row = self.db.execute("SELECT COUNT(*) FROM chunks").fetchone()
        return int(row[0]) if row else 0

    def all_chunk_texts(self) -> list[tuple[int, str]]:
        return [
            (r[0], r[1]) for r in self.db.execute("SELECT id, search_text FROM chunks ORDER BY id")
        ]

    def chunks(self, ids: Sequence[int]) -> dict[int, StoredChunk]:
        """Chunks by id (missing ids are left out). A search needs only their pages
        (``chunk_places``) and reads whole pages' chunks for those it re-ranks."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            "SELECT id, document_id, page, text, heading, kind, lines FROM chunks"
            f" WHERE id IN ({marks})",
            tuple(ids),
        )
        return {
            r[0]: StoredChunk(r[0], r[1], r[2], r[3], r[4], r[5], lines_from_json(r[6]))
            for r in rows
        }

    def chunk_places(self, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """(document id, page) of each of some chunks (missing ids are left out)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.db.execute(
            f"SELECT id, document_id, page FROM chunks WHERE id IN ({marks})", tuple(ids)
        )
        return {r[0]: (r[1], r[2]) for r in rows}

    def page_chunks(self, doc_id: int, page: int) -> list[StoredChunk]:
        """The chunks of one page, in reading order."""
        return self.pages_chunks([(doc_id, page)])[(doc_id, page)]

    def pages_chunks(
        self, keys: Sequence[tuple[int, int]], terms_version: int | None = None
    ) -> dict[tuple[int, int], list[StoredChunk]]:
        """The chunks of several (document id, page) pages in one query, each page's in
        reading order (``page_chunks`` for many pages: a search re-ranks 30 at a time, and
        one statement costs a fifth of thirty); a page without chunks maps to []. With
        ``terms_version``, each chunk carries its stored line terms of that version."""
        out: dict[tuple[int, int], list[StoredChunk]] = {key: [] for key in keys}
        if not keys:
            return out
        marks = ",".join("(?,?)" for _ in out)
        terms = "t.terms" if terms_version is not None else "NULL"
        rows = self.db.execute(
            f"SELECT c.id, c.document_id, c.page, c.text, c.heading, c.kind, c.lines, {terms}"
            " FROM chunks c LEFT JOIN line_terms t ON t.chunk_id = c.id AND t.version = ?"
            f" WHERE (c.document_id, c.page) IN (VALUES {marks})"
            " ORDER BY c.document_id, c.page, c.seq",
            (terms_version, *(v for key in out for v in key)),
        )
        for r in rows:
            chunk = StoredChunk(r[0], r[1], r[2], r[3], r[4], r[5], lines_from_json(r[6]), r[7])
            out[(r[1], r[2])].append(chunk)
        return out

    # ---- the retrieval layer's line terms (app/retrieval/line_index.py) ---------------
    def count_without_terms(self, version: int) -> int:
        """Chunks with no stored line terms of ``version``."""
        row = self.db.execute(
            "SELECT COUNT(*) FROM chunks c WHERE NOT EXISTS"
            " (SELECT 1 FROM line_terms t WHERE t.chunk_id = c.id AND t.version = ?)",
            (version,),
        ).fetchone()
        return int(row[0]) if row else 0

    def chunks_without_terms(self, version: int, after: int, limit: int) -> list[tuple[int, str]]:
        """(id, lines JSON) of up to ``limit`` chunks after id ``after`` with no stored
        line terms of ``version``, by id."""
        return [
            (r[0], r[1])
            for r in self.db.execute(
                "SELECT c.id, c.lines FROM chunks c WHERE c.id > ? AND NOT EXISTS"
                " (SELECT 1 FROM line_terms t WHERE t.chunk_id = c.id AND t.version = ?)"
                " ORDER BY c.id LIMIT ?",
                (after, version, limit),
            )
        ]

    def put_line_terms(self, rows: Sequence[tuple[int, str, str]], version: int) -> None:
        """Store (chunk id, its lines JSON as read, its terms) rows in one transaction. A
        row is written only while the chunk still holds those lines: one removed since it
        was read (its id perhaps given to a new chunk) is skipped."""
        with self.transaction() as db:
            for chunk_id, lines, terms in rows:
                db.execute(
                    "INSERT OR REPLACE INTO line_terms(chunk_id, version, terms)"
                    " SELECT ?, ?, ? WHERE EXISTS"
                    " (SELECT 1 FROM chunks WHERE id = ? AND lines = ?)",
                    (chunk_id, version, terms, chunk_id, lines),
                )

    def page_texts(self, doc_id: int) -> list[str]:
        """Every page's text of a document, in page order."""
        rows = self.db.execute(
            "SELECT text FROM pages WHERE document_id = ? ORDER BY number", (doc_id,)
        )
        return [r[0] or "" for r in rows]

    def page_text(self, doc_id: int, page: int) -> str | None:
        row = self.db.execute(
            "SELECT text FROM pages WHERE document_id = ? AND number = ?", (doc_id, page)
        ).fetchone()
        return row[0] if row else None

    def page_lines(self, doc_id: int, page: int) -> tuple[TextLine, ...]:
        row = self.db.execute(
            "SELECT lines FROM pages WHERE document_id = ? AND number = ?", (doc_id, page)
        ).fetchone()
        return lines_from_json(row[0]) if row else ()

    def page_size(self, doc_id: int, page: int) -> tuple[float, float] | None:
        row = self.db.execute(
            "SELECT width, height FROM pages WHERE document_id = ? AND number = ?", (doc_id, page)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def thumbnail(self, doc_id: int, page: int) -> bytes | None:
        row = self.db.execute(
            "SELECT thumbnail FROM pages WHERE document_id = ? AND number = ?", (doc_id, page)
        ).fetchone()
        return bytes(row[0]) if row and row[0] is not None else None

    def source_path(self, doc_id: int) -> str | None:
        row = self.db.execute(
            "SELECT source_path FROM documents WHERE id = ?", (doc_id,)
        ).fetchone()
        return row[0] if row else None

    def check_integrity(self) -> list[str]:
        """SQLite's integrity check plus the library's own invariants; empty when sound."""
        problems = [r[0] for r in self.db.execute("PRAGMA integrity_check") if r[0] != "ok"]
        for doc_id, expected, actual in self.db.execute(
            "SELECT d.id, d.page_count, (SELECT COUNT(*) FROM pages p WHERE p.document_id = d.id)"
            " FROM documents d"
        ):
            if expected != actual:
                problems.append(f"document {doc_id}: {actual} pages stored, {expected} expected")
        orphans = self.db.execute(
            "SELECT COUNT(*) FROM chunks WHERE document_id NOT IN (SELECT id FROM documents)"
        ).fetchone()[0]  # type: ignore[index]
        if orphans:
            problems.append(f"{orphans} chunks without a document")
        missing = self.db.execute(
            "SELECT COUNT(*) FROM chunks WHERE id NOT IN (SELECT chunk_id FROM chunk_vectors)"
        ).fetchone()[0]  # type: ignore[index]
        if missing:
            problems.append(f"{missing} chunks without a vector")
        return problems
