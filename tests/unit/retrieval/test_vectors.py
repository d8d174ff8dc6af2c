"""Vector KNN: the approximate path agrees with an exact numpy search, the exact path is
exact, and removed, replaced or re-imported documents never leave stale vectors behind."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import numpy as np
import pytest

from app.library.models import ChunkDraft
from app.library.store import NewDocument, PageRecord, Store
from app.retrieval import vectors
from app.retrieval.vectors import VectorIndex

DIM = 384


def clustered(rng: np.random.Generator, n: int, topics: int = 40) -> np.ndarray:
    """Unit vectors shaped like sentence embeddings: a shared mean direction, a steep
    spectrum, and topics; uniform noise would make the sign bits look better than they are."""
    scale = (np.arange(DIM) + 1.0) ** -0.4
    mean = rng.standard_normal(DIM) * scale
    mean *= 0.7 / np.linalg.norm(mean)
    spread = 0.9 / np.linalg.norm(scale)
    centres = mean + spread * rng.standard_normal((topics, DIM)) * scale
    x = centres[rng.integers(0, topics, n)] + spread * rng.standard_normal((n, DIM)) * scale
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def document(name: str, vecs: np.ndarray) -> NewDocument:
    chunks = [
        ChunkDraft(page=1 + i // 10, text=f"{name} chunk {i}", lines=()) for i in range(len(vecs))
    ]
    pages = [
        PageRecord(
            number=p, width=595.0, height=842.0, text="", search_text="", ocr=False, lines=[]
        )
        for p in range(1, len(vecs) // 10 + 2)
    ]
    return NewDocument(
        sha256=hashlib.sha256(name.encode()).hexdigest(),
        file_name=f"{name}.pdf",
        title=name,
        source_path="",
        pages=pages,
        chunks=chunks,
        chunk_search_texts=[c.text for c in chunks],
        vectors=vecs,
    )


def stored(store: Store) -> tuple[np.ndarray, np.ndarray]:
    rows = store.db.execute("SELECT chunk_id, embedding FROM chunk_vectors ORDER BY chunk_id")
    ids, blobs = zip(*rows, strict=True)
    return np.array(ids), np.frombuffer(b"".join(blobs), np.float32).reshape(len(ids), -1)


def numpy_top(store: Store, queries: np.ndarray, k: int) -> list[list[int]]:
    """The exact top ``k`` chunk ids of each query, by brute force over the stored vectors."""
    ids, matrix = stored(store)
    order = np.argsort(-(queries @ matrix.T), axis=1)[:, :k]
    return [[int(i) for i in ids[row]] for row in order]


@pytest.fixture(scope="module")
def library() -> Iterator[Store]:
    """4,000 clustered chunks in eight documents; read-only for the tests that use it."""
    rng = np.random.default_rng(0)
    store = Store.memory()
    for d, vecs in enumerate(np.split(clustered(rng, 4_000), 8)):
        store.add_document(document(f"manual-{d}", vecs))
    yield store
    store.close()


@pytest.fixture(scope="module")
def queries(library: Store) -> np.ndarray:
    """Near the data but in none of it: stored vectors plus noise as large as the vectors."""
    rng = np.random.default_rng(1)
    _, matrix = stored(library)
    picked = matrix[rng.integers(0, len(matrix), 40)]
    q = picked + rng.standard_normal(picked.shape) / np.sqrt(DIM)
    return (q / np.linalg.norm(q, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture
def approximate(monkeypatch: pytest.MonkeyPatch) -> None:
    """Send every query down the approximate path, rescoring few enough candidates (200
    of 4,000) that the sign-bit first pass has to do real work."""
    monkeypatch.setattr(vectors, "BINARY_THRESHOLD", 0)
    monkeypatch.setattr(vectors, "CANDIDATES", 200)
    monkeypatch.setattr(vectors, "OVERSAMPLE", 10)


@pytest.mark.usefixtures("approximate")
def test_approximate_top10_agrees_with_exact_numpy(library: Store, queries: np.ndarray) -> None:
    index = VectorIndex(library)
    found = 0
    for q, want in zip(queries, numpy_top(library, queries, 10), strict=True):
        got = index.knn(q, 10)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        found += len({c for c, _ in got} & set(want))
    assert found / (10 * len(queries)) >= 0.95


@pytest.mark.usefixtures("approximate")
def test_approximate_cosines_are_the_vectors_cosines(library: Store, queries: np.ndarray) -> None:
    index = VectorIndex(library)
    got = index.knn(queries[0], 5)
    exact = index.get([c for c, _ in got])
    for chunk_id, cosine in got:
        assert cosine == pytest.approx(float(exact[chunk_id] @ queries[0]), abs=1e-6)


def test_exact_path_equals_numpy_top10(library: Store, queries: np.ndarray) -> None:
    index = VectorIndex(library)
    for q, want in zip(queries, numpy_top(library, queries, 10), strict=True):
        got = index.knn(q, 10, exact=True)
        assert [c for c, _ in got] == want
        vecs = index.get([c for c, _ in got])
        assert [s for _, s in got] == pytest.approx([float(vecs[c] @ q) for c, _ in got], abs=1e-5)


def test_small_library_defaults_to_exact(library: Store, queries: np.ndarray) -> None:
    index = VectorIndex(library)  # 4,000 chunks < BINARY_THRESHOLD
    assert [c for c, _ in index.knn(queries[0], 10)] == numpy_top(library, queries[:1], 10)[0]


@pytest.mark.parametrize("exact", [True, False])
def test_asking_for_more_than_the_library_holds_returns_everything(
    store: Store, exact: bool
) -> None:
    rng = np.random.default_rng(2)
    store.add_document(document("tiny", clustered(rng, 7)))
    got = VectorIndex(store).knn(clustered(rng, 1)[0], 20, exact=exact)
    assert len(got) == 7
    assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)


def test_empty_library_returns_nothing(store: Store) -> None:
    query = clustered(np.random.default_rng(3), 1)[0]
    index = VectorIndex(store)
    assert index.knn(query, 10) == []
    assert index.knn(query, 10, exact=True) == []
    assert index.knn(query, 10, exact=False) == []
    assert index.get([]) == {}


@pytest.mark.parametrize("exact", [True, False])
def test_library_emptied_by_removal_returns_nothing(store: Store, exact: bool) -> None:
    rng = np.random.default_rng(4)
    doc_id = store.add_document(document("only", clustered(rng, 50)))
    index = VectorIndex(store)
    query = clustered(rng, 1)[0]
    assert index.knn(query, 5, exact=exact)
    store.remove_document(doc_id)
    assert index.knn(query, 5, exact=exact) == []


def index_rows(store: Store, table: str) -> set[int]:
    return {r[0] for r in store.db.execute(f"SELECT rowid FROM {table}")}


def test_removing_a_document_removes_its_vectors_everywhere(store: Store) -> None:
    rng = np.random.default_rng(5)
    keep = store.add_document(document("keep", clustered(rng, 300)))
    gone = store.add_document(document("gone", clustered(rng, 300)))
    gone_ids = {
        r[0] for r in store.db.execute("SELECT id FROM chunks WHERE document_id = ?", (gone,))
    }
    index = VectorIndex(store)
    query = np.mean(stored(store)[1][300:], axis=0)  # in the middle of the removed document
    query /= np.linalg.norm(query)
    assert {c for c, _ in index.knn(query, 10, exact=False)} <= gone_ids  # snapshot loaded

    assert store.remove_document(gone)

    for table in ("vec_chunks", "vec_chunks_bits", "chunk_vectors"):
        assert not index_rows(store, table) & gone_ids, table
    assert len(index_rows(store, "vec_chunks")) == len(index_rows(store, "vec_chunks_bits")) == 300
    keep_ids = {
        r[0] for r in store.db.execute("SELECT id FROM chunks WHERE document_id = ?", (keep,))
    }
    for exact in (True, False):
        got = {c for c, _ in index.knn(query, 50, exact=exact)}
        assert len(got) == 50
        assert got <= keep_ids


def test_reimport_reusing_ids_is_not_served_stale_vectors(store: Store) -> None:
    """SQLite gives a removed last document's ids to the next import: the in-memory
    snapshot must notice the vectors behind those ids changed."""
    rng = np.random.default_rng(6)
    store.add_document(document("first", clustered(rng, 200)))
    last = store.add_document(document("second", clustered(rng, 200)))
    index = VectorIndex(store)
    query = clustered(rng, 1)[0]
    index.knn(query, 10, exact=False)  # snapshot loaded
    old_ids = {
        r[0] for r in store.db.execute("SELECT id FROM chunks WHERE document_id = ?", (last,))
    }

    store.remove_document(last)
    new = clustered(rng, 200)
    new[17] = query  # the new document holds the query itself, under a reused id
    again = store.add_document(document("third", new))
    new_ids = {
        r[0] for r in store.db.execute("SELECT id FROM chunks WHERE document_id = ?", (again,))
    }

    assert again == last and new_ids == old_ids  # the premise: ids were reused
    best, cosine = index.knn(query, 1, exact=False)[0]
    assert cosine == pytest.approx(1.0, abs=1e-3)
    assert best == min(new_ids) + 17


def test_replaced_vectors_are_searched(store: Store) -> None:
    """After a re-embed (``replace_vectors``) the approximate path uses the new vectors."""
    rng = np.random.default_rng(7)
    store.add_document(document("doc", clustered(rng, 300)))
    index = VectorIndex(store)
    ids, old = stored(store)
    index.knn(old[0], 5, exact=False)  # snapshot loaded
    new = clustered(np.random.default_rng(8), len(ids))
    store.replace_vectors([int(i) for i in ids], new, "another-embedder")
    best, cosine = index.knn(new[123], 1, exact=False)[0]
    assert best == int(ids[123])
    assert cosine == pytest.approx(1.0, abs=1e-3)


def test_documents_added_after_a_search_are_found(store: Store) -> None:
    rng = np.random.default_rng(9)
    first = store.add_document(document("a", clustered(rng, 200)))
    index = VectorIndex(store)
    index.knn(clustered(rng, 1)[0], 5, exact=False)  # snapshot loaded
    extra = clustered(rng, 100)
    doc_id = store.add_document(document("b", extra))
    for q, owner in ((extra[42], doc_id), (stored(store)[1][7], first)):
        best, cosine = index.knn(q, 1, exact=False)[0]
        assert store.chunks([best])[best].document_id == owner
        assert cosine == pytest.approx(1.0, abs=1e-3)


def test_vectors_read_from_the_snapshot_are_the_stored_ones(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(7)
    first = store.add_document(document("first", clustered(rng, 30)))
    store.add_document(document("second", clustered(rng, 30)))
    index = VectorIndex(store)
    index.knn(clustered(rng, 1)[0], 5, exact=False)  # loads the snapshot
    ids, matrix = stored(store)
    wanted = [int(ids[40]), int(ids[3]), 999_999, int(ids[59])]

    calls: list[object] = []
    monkeypatch.setattr(vectors, "chunk_vectors", lambda *a: calls.append(a) or {})
    got = index.get(wanted)
    assert calls == []  # not read from the database
    assert sorted(got) == sorted(wanted[:2] + wanted[3:])
    for cid, vec in got.items():
        np.testing.assert_array_equal(vec, matrix[list(ids).index(cid)])

    store.remove_document(first)  # the snapshot is out of date: the database answers
    monkeypatch.undo()
    assert set(index.get(wanted)) == {int(ids[40]), int(ids[59])}
