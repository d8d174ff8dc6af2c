"""The ``page_visual`` table: ColQwen multi-vectors stored per page, and how they get there.

Each page's vectors live in ``page_visual.vectors`` as a float16 blob (half the size;
MaxSim moves by ~1e-3 at most). ``page_visual.pooled`` holds a small float32 summary: the
page's normalised mean vector followed by up to 16 k-means centroids of its vectors
("token pooling"), which the first pass of a visual search scores (``app.retrieval.visual``).
Every SQL statement against the table is here; retrieval reads through ``VisualPages``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from app.runtime.colqwen import ColQwenBackend, PageEmbedding

if TYPE_CHECKING:
    from PIL import Image

    from app.library.store import Store

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class EmbedProgress:
    """Progress of embedding the pages that have no visual vectors yet."""

    done: int
    total: int
    eta_seconds: float | None
    document_id: int
    page: int
    error: str = ""


@dataclass(frozen=True, slots=True)
class PooledPages:
    """Every page's pooled vectors in one matrix: ``flat[starts[i]:starts[i+1]]`` is page i."""

    page_ids: np.ndarray
    flat: np.ndarray
    starts: np.ndarray


def pooled_vectors(vectors: np.ndarray, k: int = 16, rounds: int = 4) -> np.ndarray:
    """The page's normalised mean vector, then ``k`` normalised k-means centroids.

    Deterministic (seeded), and about a millisecond per page: small next to the model.
    """
    v = vectors.astype(np.float32)
    k = min(k, len(v))
    centroids = v[np.random.default_rng(0).choice(len(v), k, replace=False)]
    for _ in range(rounds):
        onehot = np.eye(k, dtype=np.float32)[(v @ centroids.T).argmax(axis=1)]
        counts = onehot.sum(axis=0)[:, None]
        centroids = np.where(counts > 0, onehot.T @ v / np.maximum(counts, 1), centroids)
    rows = np.concatenate([v.mean(axis=0, keepdims=True), centroids])
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


class VisualPages:
    """The ``page_visual`` table of a store: writes, and the reads a visual search needs."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pooled: dict[str, tuple[tuple[int, int, int], PooledPages]] = {}
        self._writes = 0

    def add_page(self, page_id: int, embedding: PageEmbedding, model: str) -> None:
        """Store (or replace) one page's vectors."""
        self.add_pages([(page_id, embedding)], model)

    def add_pages(self, items: Iterable[tuple[int, PageEmbedding]], model: str) -> None:
        """Store several pages in one transaction: all of them or, after a crash, none."""
        rows = []
        for page_id, emb in items:
            vectors = np.ascontiguousarray(emb.vectors, dtype=np.float16)
            rows.append(
                (page_id, model, vectors.shape[0], vectors.shape[1], *emb.grid,
                 vectors.tobytes(), pooled_vectors(emb.vectors).tobytes())
            )  # fmt: skip
        with self.store.transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO page_visual(page_id, model, n_vectors, dim, grid_h,"
                " grid_w, vectors, pooled) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
        self._writes += 1

    def _one(self, sql: str, args: tuple[object, ...]) -> tuple[Any, ...]:
        row = self.store.db.execute(sql, args).fetchone()
        if row is None:
            raise LookupError(f"no row for {args}")
        return tuple(row)

    def main_model(self) -> str | None:
        """The model most pages are embedded with, or None when no page is."""
        row = self.store.db.execute(
            "SELECT model FROM page_visual GROUP BY model ORDER BY COUNT(*) DESC LIMIT 1"
        ).fetchone()
        return str(row[0]) if row else None

    def has_pages(self, model: str) -> bool:
        row = self.store.db.execute(
            "SELECT 1 FROM page_visual WHERE model = ? LIMIT 1", (model,)
        ).fetchone()
        return row is not None

    def missing_pages(self, model: str) -> list[tuple[int, int, int]]:
        """``(document_id, page_no, page_id)`` of every page without ``model`` vectors."""
        rows = self.store.db.execute(
            "SELECT p.document_id, p.number, p.id FROM pages p"
            " LEFT JOIN page_visual v ON v.page_id = p.id AND v.model = ?"
            " WHERE v.page_id IS NULL ORDER BY p.document_id, p.number",
            (model,),
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def page_embedding(self, page_id: int, model: str) -> PageEmbedding | None:
        return self.embeddings([page_id], model).get(page_id)

    def embeddings(self, page_ids: list[int], model: str) -> dict[int, PageEmbedding]:
        """The stored vectors of these pages (float16), by page id; missing ones left out."""
        marks = ",".join("?" * len(page_ids))
        rows = self.store.db.execute(
            "SELECT page_id, n_vectors, dim, grid_h, grid_w, vectors FROM page_visual"
            f" WHERE model = ? AND page_id IN ({marks})",
            (model, *page_ids),
        )
        return {
            r[0]: PageEmbedding(np.frombuffer(r[5], np.float16).reshape(r[1], r[2]), (r[3], r[4]))
            for r in rows
        }

    def pooled_pages(self, model: str) -> PooledPages:
        """Every page's pooled vectors, cached until the table changes."""
        count, total = self._one(
            "SELECT COUNT(*), COALESCE(SUM(page_id), 0) FROM page_visual WHERE model = ?",
            (model,),
        )
        key = (int(count), int(total), self._writes)
        cached = self._pooled.get(model)
        if cached is None or cached[0] != key:
            rows: list[Any] = self.store.db.execute(
                "SELECT page_id, dim, pooled FROM page_visual WHERE model = ? ORDER BY page_id",
                (model,),
            ).fetchall()
            blocks = [np.frombuffer(r[2], np.float32).reshape(-1, r[1]) for r in rows]
            pooled = PooledPages(
                page_ids=np.array([r[0] for r in rows], dtype=np.int64),
                flat=np.concatenate(blocks) if blocks else np.zeros((0, 1), np.float32),
                starts=np.cumsum([0] + [len(b) for b in blocks[:-1]]).astype(np.int64),
            )
            cached = (key, pooled)
            self._pooled[model] = cached
        return cached[1]

    def page_place(self, page_id: int) -> tuple[int, int, float, float]:
        """(document id, page number, width, height in points) of a page."""
        doc_id, number, width, height = self._one(
            "SELECT document_id, number, width, height FROM pages WHERE id = ?", (page_id,)
        )
        return int(doc_id), int(number), float(width), float(height)


def embed_missing_pages(
    store: Store,
    backend: ColQwenBackend,
    render_page: Callable[[int, int], Image.Image],
    model_name: str,
    batch_size: int = 4,
) -> Iterator[EmbedProgress]:
    """Embed every page that has no ``model_name`` vectors yet, yielding progress.

    Each small batch is committed before the next is rendered, so a kill loses at most
    one batch and running this again resumes where it stopped. A page that fails to
    render is reported (``error``) and left missing. Raises ColQwenUnavailable when the
    model cannot load.
    """
    index = VisualPages(store)
    todo = index.missing_pages(model_name)
    start, done = time.monotonic(), 0
    for at in range(0, len(todo), batch_size):
        batch = todo[at : at + batch_size]
        images, ids = [], []
        for doc_id, page_no, page_id in batch:
            try:
                images.append(render_page(doc_id, page_no))
                ids.append(page_id)
            except Exception as exc:
                log.warning("cannot render page %s of document %s: %s", page_no, doc_id, exc)
                yield EmbedProgress(done, len(todo), None, doc_id, page_no, f"render: {exc}")
        if images:
            index.add_pages(zip(ids, backend.embed_images(images), strict=True), model_name)
        done += len(batch)
        eta = (time.monotonic() - start) / done * (len(todo) - done)
        yield EmbedProgress(done, len(todo), eta, batch[-1][0], batch[-1][1])
