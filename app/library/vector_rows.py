"""The library's chunk-vector tables as the vector search reads them (``vec_chunks``, the
sqlite-vec KNN index, and ``chunk_vectors``, the exact float32 copies): every SQL
statement the search needs, so retrieval holds the ranking and no SQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import apsw
import numpy as np

from app.library.store import Store


def exact_knn(store: Store, query: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(chunk id, cosine) of the ``k`` nearest chunks by sqlite-vec's exact scan, best first
    (``query`` float32 and unit length, like the stored vectors)."""
    rows = store.db.execute(
        "SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ?",
        (query.tobytes(), k),
    )
    return [(r[0], 1.0 - r[1] ** 2 / 2.0) for r in rows]


def chunk_vectors(store: Store, ids: Sequence[int]) -> dict[int, np.ndarray]:
    """The exact float32 vectors of some chunks (missing ids are left out)."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = store.db.execute(
        f"SELECT chunk_id, embedding FROM chunk_vectors WHERE chunk_id IN ({marks})", tuple(ids)
    )
    return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in rows}


def database_version(db: apsw.Connection) -> tuple[int, int, int]:
    """Changes whenever the database may have: another connection committed
    (data_version), this one wrote (total_changes), or a table was created or dropped
    (schema_version, which is how ``Store.replace_vectors`` rebuilds the vectors)."""
    schema = db.execute("PRAGMA schema_version").fetchone()
    data = db.execute("PRAGMA data_version").fetchone()
    return (int(schema[0]) if schema else 0, int(data[0]) if data else 0, db.total_changes())


def document_signatures(db: apsw.Connection, rows: str = "chunks") -> dict[int, tuple[object, ...]]:
    """Per document with ``rows`` ("chunks" or "pages"): (sha256, import time, reading of
    PDFs, first row id, last row id, row count). A document imported again, or read again
    in place (its pages keep their ids: ``Store.replace_content``), or its ids handed on,
    reads otherwise."""
    if rows not in ("chunks", "pages"):
        raise ValueError(f"not a table of a document's rows: {rows!r}")
    return {
        r[0]: tuple(r[1:])
        for r in db.execute(
            "SELECT d.id, d.sha256, d.imported_at, d.extraction, MIN(x.id), MAX(x.id), COUNT(x.id)"
            " FROM documents d"
            f" JOIN {rows} x ON x.document_id = d.id GROUP BY d.id"
        )
    }


def document_vectors(db: apsw.Connection, doc_id: int) -> list[Any]:
    """(chunk id, float32 blob) of every chunk of a document that has a vector."""
    return db.execute(
        "SELECT v.chunk_id, v.embedding FROM chunks c"
        " JOIN chunk_vectors v ON v.chunk_id = c.id WHERE c.document_id = ?",
        (doc_id,),
    ).fetchall()
