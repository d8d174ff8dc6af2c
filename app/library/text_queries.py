"""The full-text side of the library as the text search reads it: FTS5 matches over
chunks and pages, their vocabularies (fts5vocab views), the OCR'd pages' text and a
read-only second connection. Every SQL statement the search runs is here; the ranking
is ``app.retrieval.text``'s. Each function takes the connection to run on, so a query
can go to the second connection while the first does other work."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import apsw

VOCABULARIES = (("chunks_vocab", "chunks_fts"), ("pages_vocab", "pages_fts"))
INDEXES = ("chunks_fts", "pages_fts")


def add_vocabulary_views(db: apsw.Connection) -> None:
    """The per-connection (temp) fts5vocab views over the chunk and page indexes."""
    for table, source in VOCABULARIES:
        db.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table} USING fts5vocab(main, {source}, row)"
        )


def open_reader(path: Path) -> apsw.Connection:
    """A second, read-only connection to the library's database."""
    db = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    db.set_busy_timeout(10_000)
    return db


def documents_matching(db: apsw.Connection, match: str) -> int:
    """How many documents have a page matching the FTS5 query ``match``."""
    row = db.execute(
        "SELECT count(DISTINCT p.document_id) FROM pages_fts f JOIN pages p ON p.id = f.rowid"
        " WHERE pages_fts MATCH ?",
        (match,),
    ).fetchone()
    return int(row[0]) if row else 0


def pages_per_document(db: apsw.Connection, match: str) -> dict[int, int]:
    """How many pages of each document match the FTS5 query ``match`` (documents with
    none left out)."""
    rows = db.execute(
        "SELECT p.document_id, count(*) FROM pages_fts f JOIN pages p ON p.id = f.rowid"
        " WHERE pages_fts MATCH ? GROUP BY p.document_id",
        (match,),
    )
    return {int(doc_id): int(count) for doc_id, count in rows}


def chunk_texts_matching(db: apsw.Connection, match: str, limit: int) -> list[Any]:
    """(text,) rows of up to ``limit`` chunks matching ``match``."""
    return list(
        db.execute(
            "SELECT c.text FROM chunks_fts f JOIN chunks c ON c.id = f.rowid"
            " WHERE chunks_fts MATCH ? LIMIT ?",
            (match, limit),
        )
    )


def chunk_term_documents(db: apsw.Connection, term: str) -> int | None:
    """How many chunks hold the indexed (stemmed) ``term``; None when none does."""
    row = db.execute("SELECT doc FROM temp.chunks_vocab WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else None


def page_term_documents(db: apsw.Connection, term: str) -> int | None:
    """How many pages hold the indexed (stemmed) ``term``; None when none does."""
    row = db.execute("SELECT doc FROM temp.pages_vocab WHERE term = ?", (term,)).fetchone()
    return int(row[0]) if row else None


def page_vocabulary(db: apsw.Connection) -> list[tuple[str, int]]:
    """(indexed term, pages holding it) of every term of the page index."""
    return [(str(t), int(n)) for t, n in db.execute("SELECT term, doc FROM temp.pages_vocab")]


def page_term_counts(db: apsw.Connection, term: str) -> tuple[int, int] | None:
    """(pages holding the indexed ``term``, times it is printed on them); None when none."""
    row = db.execute("SELECT doc, cnt FROM temp.pages_vocab WHERE term = ?", (term,)).fetchone()
    return (int(row[0]), int(row[1])) if row else None


def ocr_page_texts(db: apsw.Connection, document_ids: Sequence[int]) -> list[Any]:
    """(document id, page number, text) of the OCR'd pages of some documents."""
    marks = ",".join("?" * len(document_ids))
    return list(
        db.execute(
            "SELECT document_id, number, text FROM pages"
            f" WHERE ocr = 1 AND document_id IN ({marks})",
            tuple(document_ids),
        )
    )


def bm25_chunk_ids(db: apsw.Connection, match: str, limit: int) -> list[int]:
    """Ids of the ``limit`` chunks matching ``match``, best BM25 first (the heading column
    weighs half)."""
    rows = db.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"
        " ORDER BY bm25(chunks_fts, 1.0, 0.5) LIMIT ?",
        (match, limit),
    )
    return [r[0] for r in rows]


def phrase_scores(
    db: apsw.Connection, table: str, weights: Sequence[float], match: str
) -> list[tuple[int, float]]:
    """(rowid, bm25) of every row of the full-text index ``table`` ("chunks_fts" or
    "pages_fts") matching ``match``, its columns weighted by ``weights``."""
    _check_index(table)
    marks = ", ".join("?" * len(weights))
    rows = db.execute(
        f"SELECT rowid, bm25({table}, {marks}) FROM {table} WHERE {table} MATCH ?",
        (*weights, match),
    )
    return [(r[0], r[1]) for r in rows]


def index_sizes(db: apsw.Connection, table: str, ids: Sequence[int]) -> dict[int, int]:
    """Tokens the full-text index ``table`` holds for each of some rows (all columns),
    from its docsize table; rows it does not hold are left out."""
    _check_index(table)
    if not ids:
        return {}
    wanted = set(ids)
    rows = db.execute(
        f"SELECT id, sz FROM {table}_docsize WHERE id BETWEEN ? AND ?", (min(ids), max(ids))
    )
    return {r[0]: sum(_varints(r[1])) for r in rows if r[0] in wanted}


def _check_index(table: str) -> None:
    """Only the library's two full-text tables go into these statements' text."""
    if table not in INDEXES:
        raise ValueError(f"not a full-text index of the library: {table!r}")


def _varints(blob: bytes) -> list[int]:
    """The varints of an FTS5 docsize record (SQLite's: 7 bits a byte, high bit set on
    every byte but the last)."""
    out, value = [], 0
    for byte in blob:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            out.append(value)
            value = 0
    return out


def document_page_texts(db: apsw.Connection, doc_id: int) -> list[Any]:
    """(page id, page number, text) of a document's pages, in id order."""
    return list(
        db.execute(
            "SELECT id, number, text FROM pages WHERE document_id = ? ORDER BY id", (doc_id,)
        )
    )


def document_chunk_texts(db: apsw.Connection, doc_id: int) -> list[Any]:
    """(chunk id, page number, search text, heading) of a document's chunks, as the chunk
    index holds them, in id order."""
    return list(
        db.execute(
            "SELECT id, page, search_text, heading FROM chunks WHERE document_id = ? ORDER BY id",
            (doc_id,),
        )
    )


def chunk_ids_matching(db: apsw.Connection, match: str, limit: int) -> list[int]:
    """Ids of up to ``limit`` chunks matching ``match``, in index order."""
    return [r[0] for r in db.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ?", (match, limit)
    )]  # fmt: skip


def bm25_pages(db: apsw.Connection, match: str, limit: int) -> list[tuple[int, int]]:
    """(document id, page number) of the ``limit`` pages matching ``match``, best first."""
    rows = db.execute(
        "SELECT p.document_id, p.number FROM pages_fts f JOIN pages p ON p.id = f.rowid"
        " WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts) LIMIT ?",
        (match, limit),
    )
    return [(r[0], r[1]) for r in rows]
