"""Vector KNN over chunk embeddings with sqlite-vec.

Small libraries use exact float KNN. Past ``BINARY_THRESHOLD`` chunks a binary-quantised
first pass (Hamming distance, very cheap) picks candidates that are rescored exactly
against the float vectors, which keeps latency flat as the library grows.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app.library.store import Store

BINARY_THRESHOLD = 20_000
OVERSAMPLE = 20


class VectorIndex:
    def __init__(self, store: Store) -> None:
        self.store = store

    def knn(self, query: np.ndarray, k: int, exact: bool | None = None) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the ``k`` nearest chunks, best first."""
        if self.store.vector_dim() is None:
            return []
        blob = np.ascontiguousarray(query, dtype=np.float32).tobytes()
        if exact is None:
            exact = self.store.chunk_count() < BINARY_THRESHOLD
        if exact:
            rows = self.store.db.execute(
                "SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ?",
                (blob, k),
            )
            return [(r[0], 1.0 - r[1] ** 2 / 2.0) for r in rows]
        rows = self.store.db.execute(
            "SELECT rowid FROM vec_chunks_bits WHERE embedding MATCH vec_quantize_binary(?)"
            " AND k = ?",
            (blob, k * OVERSAMPLE),
        )
        ids = [r[0] for r in rows]
        vectors = self.get(ids)
        scored = sorted(
            ((cid, float(v @ query)) for cid, v in vectors.items()), key=lambda t: -t[1]
        )
        return scored[:k]

    def get(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.store.db.execute(
            f"SELECT chunk_id, embedding FROM chunk_vectors WHERE chunk_id IN ({marks})", tuple(ids)
        )
        return {r[0]: np.frombuffer(r[1], dtype=np.float32) for r in rows}
