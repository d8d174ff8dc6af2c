"""Vector KNN over chunk embeddings.

Below ``BINARY_THRESHOLD`` chunks: sqlite-vec's exact float KNN over ``vec_chunks``.
Above it: an in-memory snapshot of the vectors. A query ranks every chunk by the Hamming
distance between the sign bits of *centred* vectors (48 bytes a chunk), then rescores the
best ``max(CANDIDATES, OVERSAMPLE * k)`` exactly from float32 copies.

Measured with ``bench/search_latency.py`` (one run): 100,000 chunks x 384 dims, vectors
shaped like all-MiniLM-L6-v2's on manuals, 200 queries near them, two CPUs shared with
other work. Wall-clock p50 / p95 and CPU p50 in ms; recall against a numpy brute force:

=======================================  ==================  ======  ==================  ======
                                         k=10                recall  k=60                recall
=======================================  ==================  ======  ==================  ======
this, 1,000 / 1,920 candidates            6.6 /  7.9 (2.6)   0.9995   7.8 / 11.3 (3.7)   0.9995
this, only 20 x k candidates              1.7 /  5.7 (1.6)   0.983    4.0 /  8.0 (2.5)   0.999
sqlite-vec float[384], exact              120 / 144  (76)    1        123 / 148  (82)    1
sqlite-vec bit[384], 20 x k + blobs        26 / 38   (26)    0.975    179 / 191  (177)   0.9985
numpy float32 @ over all, in memory        20 / 27   (8)     1         20 / 28   (8)     1
=======================================  ==================  ======  ==================  ======

sqlite-vec's exact scan is far too slow at this size. Its bit table (``vec_chunks_bits``,
which the store still writes) takes signs around zero, but sentence embeddings share a
strong mean direction (MiniLM on manuals: norm 0.48), so many dimensions have the same
sign in nearly every chunk and their bits say little: with 20 x k candidates it misses the
0.98 target, and fetching the candidates by id from a 600 MB database is slow (the 1,200
that k=60 needs). Centring the signs lifts recall at equal candidates (0.975 -> 0.983);
in memory, rescoring 1,000 or more is cheap, which lifts it to 0.9995 for ~1 ms of CPU, a
margin kept for libraries less clustered than the bench's. numpy's ``@`` over everything
is exact but reads 154 MB per query; with BLAS threads on a busy CPU it is slower still.

The price: 1.5 kB of memory per chunk (154 MB at 100,000), and a load the first time a
library is searched, then a reload of the documents that changed (0.6-0.9 s for all
100,000). The copies were float16 before (half the memory), but converting the rescored
rows to float32 at every query cost more than the rescoring: with float32 copies a k=120
query went from 5.5 to 2.7 ms p50 and a whole ``TextSearch.search`` from 23.5 to 21.2 ms
(``bench/search_latency.py``, one run before and one after).
``get`` returns the exact float32 vectors (the snapshot's, when it is up to date: the
same values as the database's). The threshold is 5,000, not
20,000: sqlite-vec's exact scan costs 0.6-0.9 ms of CPU per 1,000 chunks (at 20,000,
``--docs 10``, 51 ms wall against 1.6 ms here at recall 1.0), and up to ``CANDIDATES``
chunks this path is exact.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial

import apsw
import numpy as np

from app.library.store import Store
from app.library.vector_rows import (
    chunk_vectors,
    database_version,
    document_signatures,
    document_vectors,
    exact_knn,
)

Hit = tuple[int, float]  # (chunk id, cosine)
BINARY_THRESHOLD = 5_000
CANDIDATES = 1_000  # rescored per query at least: recall@10 0.9995 at 100,000 chunks
OVERSAMPLE = 32  # ...or this many per neighbour asked for: recall@60 0.9995 (1,920)
_BATCH = 4_096  # rows read, converted and packed at a time, to bound peak memory


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """The library's vectors as of one database version."""

    key: tuple[int, int, int]  # (schema version, data version, this connection's changes)
    documents: dict[int, tuple[object, ...]]  # id -> (sha256, first/last chunk id, chunks)
    ids: np.ndarray  # (n,) int64 chunk ids
    owners: np.ndarray  # (n,) int64 the document of each chunk
    vectors: np.ndarray  # (n, dim) float32
    centre: np.ndarray  # (dim,) float32: the mean vector the signs are taken around
    bits: np.ndarray  # (words, n) uint64: word w holds the signs of dimensions 64w..64w+63
    order: np.ndarray  # (n,) the rows in the order of their chunk ids (``rows_of``)
    sorted_ids: np.ndarray  # (n,) the chunk ids in that order

    def rows_of(self, ids: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """(the ids held, their rows) of some chunk ids."""
        wanted = np.asarray(ids, np.int64)
        if not len(self.ids) or not len(wanted):
            return wanted[:0], wanted[:0]
        at = np.minimum(np.searchsorted(self.sorted_ids, wanted), len(self.ids) - 1)
        held = self.sorted_ids[at] == wanted
        return wanted[held], self.order[at[held]]

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        n = len(self.ids)
        if not n:
            return []
        wanted = min(n, max(CANDIDATES, OVERSAMPLE * k))
        if wanted == n:
            rows = np.arange(n)
        else:
            rows = _nearest_by_hamming(self.bits, _signs(query[None, :], self.centre)[:, 0], wanted)
        # einsum, not @: BLAS's threads spin when the CPU is busy (10-40 ms instead of 1).
        scores = np.einsum("ij,j->i", self.vectors[rows], query)
        top = np.argsort(-scores)[:k] if k >= len(rows) else _top(scores, k)
        return [(int(self.ids[rows[i]]), float(scores[i])) for i in top]


def _top(scores: np.ndarray, k: int) -> np.ndarray:
    part = np.argpartition(-scores, k - 1)[:k]
    return part[np.argsort(-scores[part])]


def _signs(vectors: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """(words, n) uint64 sign bits of ``vectors - centre``, zero-padded to 64 bits."""
    packed = np.packbits(vectors.astype(np.float32) > centre, axis=1)
    pad = -packed.shape[1] % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed.view(np.uint64).T)


def _nearest_by_hamming(bits: np.ndarray, query_bits: np.ndarray, wanted: int) -> np.ndarray:
    """Rows of the ``wanted`` smallest Hamming distances (ties broken by row order)."""
    distance = np.bitwise_count(bits[0] ^ query_bits[0]).astype(np.uint16)
    for word, q in zip(bits[1:], query_bits[1:], strict=True):
        distance += np.bitwise_count(word ^ q)
    # Distances are small integers: a histogram finds the cut-off faster than a partition.
    cutoff = int(np.searchsorted(np.cumsum(np.bincount(distance)), wanted))
    below = np.flatnonzero(distance < cutoff)
    at = np.flatnonzero(distance == cutoff)[: wanted - len(below)]
    return np.concatenate([below, at])


class VectorIndex:
    """KNN over a store's chunk vectors; cheap to create (the snapshot is per store)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def knn(self, query: np.ndarray, k: int, exact: bool | None = None) -> list[tuple[int, float]]:
        """(chunk id, cosine) of the ``k`` nearest chunks, best first."""
        return self.searcher(exact)(query, k)

    def searcher(self, exact: bool | None = None) -> Callable[[np.ndarray, int], list[Hit]]:
        """``knn`` as of now. What it needs of the database is read here, on the calling
        thread: when ``detached``, the function returned touches no connection, so
        another thread can run it while this one queries the database."""
        if self.store.vector_dim() is None:
            return lambda query, k: []
        search: Callable[[np.ndarray, int], list[Hit]]
        if self._exact(exact):
            search = partial(exact_knn, self.store)
        else:
            search = snapshot(self.store).search

        def knn(query: np.ndarray, k: int) -> list[Hit]:
            return search(np.ascontiguousarray(query, dtype=np.float32), k) if k > 0 else []

        return knn

    def detached(self, exact: bool | None = None) -> bool:
        """Whether ``searcher(exact)`` gives a function that touches no connection (the
        in-memory snapshot, above ``BINARY_THRESHOLD`` chunks). sqlite-vec's exact scan
        runs on the store's connection, which serves one thread at a time: apsw refuses
        a statement while another thread's runs on it."""
        return self.store.vector_dim() is None or not self._exact(exact)

    def _exact(self, exact: bool | None) -> bool:
        return _chunk_count(self.store) < BINARY_THRESHOLD if exact is None else exact

    def get(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The exact float32 vectors of some chunks (missing ids are left out): from the
        snapshot when a large library's is up to date (the same float32 values as the
        database's), else from the database."""
        current = _snapshots.get(self.store)
        if current is None or current.key != _version(self.store.db):
            return chunk_vectors(self.store, ids)
        held, rows = current.rows_of(ids)
        return dict(zip(held.tolist(), current.vectors[rows], strict=True))


# ---- the per-store snapshot ---------------------------------------------------------
_snapshots: weakref.WeakKeyDictionary[Store, _Snapshot] = weakref.WeakKeyDictionary()
_counts: weakref.WeakKeyDictionary[Store, tuple[tuple[int, int, int], int]] = (
    weakref.WeakKeyDictionary()
)


_version = database_version


def _chunk_count(store: Store) -> int:
    key = _version(store.db)
    cached = _counts.get(store)
    if cached is None or cached[0] != key:
        cached = (key, store.chunk_count())
        _counts[store] = cached
    return cached[1]


def snapshot(store: Store) -> _Snapshot:
    """The store's vectors in memory, brought up to date if the database changed."""
    current = _snapshots.get(store)
    if current is not None and current.key == _version(store.db):
        return current
    with store.transaction() as db:  # one refresh at a time; never sees half an import
        current = _snapshots.get(store)
        key = _version(db)
        if current is None or current.key != key:
            current = _refresh(db, current, key)
            _snapshots[store] = current
    return current


def _refresh(db: apsw.Connection, old: _Snapshot | None, key: tuple[int, int, int]) -> _Snapshot:
    """Reload what changed, a document at a time (the store only ever adds or removes
    whole documents); everything after a schema change (``Store.replace_vectors``).

    A document is known by its sha256 and chunk ids too, not its id alone: SQLite hands a
    removed document's ids, and its chunks', to the next import."""
    documents = document_signatures(db)
    if old is None or old.key[0] != key[0]:
        old = _build(key, {}, np.zeros(0, np.int64), np.zeros(0, np.int64), None)
    same = [d for d, sig in documents.items() if old.documents.get(d) == sig]
    if len(same) == len(documents) == len(old.documents):
        return replace(old, key=key, documents=documents)
    keep = np.isin(old.owners, same)
    ids, owners, vectors = [old.ids[keep]], [old.owners[keep]], [old.vectors[keep]]
    for doc_id in documents.keys() - set(same):
        rows = document_vectors(db, doc_id)
        if rows:
            ids.append(np.array([r[0] for r in rows], np.int64))
            owners.append(np.full(len(rows), doc_id, np.int64))
            vectors.append(_matrix([r[1] for r in rows]))
    filled = [v for v in vectors if len(v)]
    matrix = np.concatenate(filled) if filled else None
    return _build(key, documents, np.concatenate(ids), np.concatenate(owners), matrix)


def _matrix(blobs: list[bytes]) -> np.ndarray:
    """float32 blobs as one matrix, copied a batch at a time (peak memory)."""
    out = np.empty((len(blobs), len(blobs[0]) // 4), np.float32)
    for i in range(0, len(blobs), _BATCH):
        part = blobs[i : i + _BATCH]
        out[i : i + len(part)] = np.frombuffer(b"".join(part), np.float32).reshape(len(part), -1)
    return out


def _build(
    key: tuple[int, int, int],
    documents: dict[int, tuple[object, ...]],
    ids: np.ndarray,
    owners: np.ndarray,
    vectors: np.ndarray | None,
) -> _Snapshot:
    if vectors is None or not len(ids):
        nothing = np.zeros((0, 0), np.float32)
        centre, bits = np.zeros(0, np.float32), np.zeros((0, 0), np.uint64)
        return _Snapshot(key, documents, ids, owners, nothing, centre, bits, ids, ids)
    centre = vectors.mean(axis=0, dtype=np.float32)
    bits = np.concatenate(
        [_signs(vectors[i : i + _BATCH], centre) for i in range(0, len(ids), _BATCH)], axis=1
    )
    order = np.argsort(ids)
    return _Snapshot(key, documents, ids, owners, vectors, centre, bits, order, ids[order])
