"""Visual search on synthetic multi-vectors: storage, MaxSim, first pass, regions, resume."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.library.store import NewDocument, PageRecord, Store
from app.library.visual_index import embed_missing_pages
from app.retrieval.visual import (
    VisualIndex,
    VisualSearch,
    map_regions,
    maxsim_scores,
    patch_scores,
)
from app.runtime.colqwen import ColQwenUnavailable, FakeColQwen, PageEmbedding
from app.runtime.colqwen_torch import TorchColQwen

DIM = 32
PAGE_W, PAGE_H = 600.0, 800.0


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def add_doc(store: Store, name: str, pages: int) -> list[int]:
    """A document with blank pages; returns the page ids in page order."""
    records = [
        PageRecord(number=n, width=PAGE_W, height=PAGE_H, text="", search_text="", ocr=False,
                   lines=[])
        for n in range(1, pages + 1)
    ]  # fmt: skip
    doc = NewDocument(
        sha256=name * 8, file_name=f"{name}.pdf", title=name, source_path="", pages=records,
        chunks=[], chunk_search_texts=[], vectors=np.zeros((0, 8), np.float32),
    )  # fmt: skip
    doc_id = store.add_document(doc)
    rows = store.db.execute("SELECT id FROM pages WHERE document_id = ? ORDER BY number", (doc_id,))
    return [r[0] for r in rows]


def unit_mean(v: np.ndarray) -> np.ndarray:
    m = v.mean(axis=0)
    return m / np.linalg.norm(m)


def random_page(rng: np.random.Generator, grid: tuple[int, int] = (6, 8)) -> PageEmbedding:
    return PageEmbedding(unit(rng, grid[0] * grid[1] + 3), grid)


@pytest.fixture
def store() -> Store:
    return Store.memory()


def test_stored_vectors_come_back_as_float16_of_the_same_page(store: Store) -> None:
    rng = np.random.default_rng(0)
    (pid,) = add_doc(store, "a", 1)
    emb = random_page(rng)
    index = VisualIndex(store)
    assert index.search(emb.vectors[:2]) == [] and index.main_model() is None
    index.add_page(pid, emb, "m1")
    back = index.page_embedding(pid, "m1")
    assert back is not None and back.grid == emb.grid
    assert back.vectors.dtype == np.float16
    np.testing.assert_allclose(back.vectors, emb.vectors, atol=1e-3)
    assert index.has_pages("m1") and not index.has_pages("other")
    pooled = index.pooled_index("m1")
    assert list(pooled.page_ids) == [pid] and list(pooled.starts) == [0]
    assert pooled.flat.shape == (17, DIM)  # the mean, then 16 centroids
    np.testing.assert_allclose(np.linalg.norm(pooled.flat, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(pooled.flat[0], unit_mean(emb.vectors), atol=1e-5)


def test_maxsim_matches_a_brute_force_loop() -> None:
    rng = np.random.default_rng(1)
    query = unit(rng, 5)
    pages = [unit(rng, n) for n in (7, 1, 30)]
    expected = [
        sum(max(float(np.dot(q, p)) for p in page) for q in query) for page in pages
    ]  # fmt: skip
    np.testing.assert_allclose(maxsim_scores(query, pages), expected, rtol=1e-5)


def topic_corpus(rng: np.random.Generator, n_pages: int) -> list[PageEmbedding]:
    """Pages of mostly shared background (blank paper) plus a few of many topics."""
    topics, background = unit(rng, 200), unit(rng, 2)
    pages = []
    for _ in range(n_pages):
        own = topics[rng.choice(200, size=4, replace=False)]
        v = np.concatenate([own[rng.integers(0, 4, size=14)], background[rng.integers(0, 2, 34)]])
        v = v + 0.4 * unit(rng, 48)
        pages.append(PageEmbedding(v / np.linalg.norm(v, axis=1, keepdims=True), (6, 8)))
    return pages


def test_first_pass_and_rescoring_find_the_page_exhaustive_maxsim_ranks_first(
    store: Store,
) -> None:
    rng = np.random.default_rng(2)
    ids = add_doc(store, "big", 300)
    pages = topic_corpus(rng, 300)
    index = VisualIndex(store)
    index.add_pages(zip(ids, pages, strict=True), "m")
    target = 123
    query = pages[target].vectors[rng.choice(14, size=6, replace=False)] + 0.2 * unit(rng, 6)
    exact = maxsim_scores(query, [p.vectors.astype(np.float16) for p in pages])
    hits = index.search(query, k=3, model="m", candidates=20)
    assert (hits[0].document_id, hits[0].page) == (1, target + 1)
    assert int(np.argmax(exact)) == target
    assert hits[0].score == pytest.approx(exact[target], rel=1e-5)
    assert hits[0].score >= hits[1].score >= hits[2].score
    assert hits[0].standout > hits[1].standout
    assert 0.0 <= hits[2].confidence <= hits[0].confidence <= 1.0


def test_regions_cover_the_patches_that_match_the_query(store: Store) -> None:
    rng = np.random.default_rng(3)
    (pid,) = add_doc(store, "r", 1)
    grid = (6, 8)
    query = unit(rng, 4)
    patches = unit(rng, 48).reshape(6, 8, DIM)
    for r in (2, 3):  # the answer sits in rows 2-3, columns 5-6
        for c in (5, 6):
            v = query[(r + c) % 4] + 0.1 * unit(rng, 1)[0]
            patches[r, c] = v / np.linalg.norm(v)
    emb = PageEmbedding(patches.reshape(48, DIM), grid)
    VisualIndex(store).add_page(pid, emb, "m")
    (hit,) = VisualIndex(store).search(query, k=1)  # the only model stored
    expected = (5 / 8 * PAGE_W, 2 / 6 * PAGE_H, 7 / 8 * PAGE_W, 4 / 6 * PAGE_H)
    assert len(hit.regions) == 1 and hit.regions[0] == pytest.approx(expected, abs=0.01)
    assert np.unravel_index(np.argmax(patch_scores(query, emb)), grid)[0] in (2, 3)


def test_a_flat_map_has_no_regions_and_separate_spots_give_separate_boxes() -> None:
    assert map_regions(np.zeros((4, 4)), (100.0, 100.0)) == ()
    scores = np.zeros((4, 4))
    scores[0, 0], scores[3, 3] = 1.0, 0.9
    assert map_regions(scores, (100.0, 100.0)) == ((0, 0, 25, 25), (75, 75, 100, 100))


def render_blank(doc_id: int, page_no: int) -> Image.Image:
    return Image.new("RGB", (40 + page_no, 60), (doc_id * 40, page_no * 20, 0))


def test_embedding_resumes_after_a_kill_and_skips_done_pages(store: Store) -> None:
    add_doc(store, "a", 3)
    add_doc(store, "b", 2)
    index, fake = VisualIndex(store), FakeColQwen(dim=DIM)
    assert len(index.missing_pages("fake")) == 5
    run = embed_missing_pages(store, fake, render_blank, "fake", batch_size=2)
    first = next(run)
    run.close()  # the app was killed after the first batch was committed
    assert (first.done, first.total) == (2, 5) and first.eta_seconds is not None
    assert [(d, p) for d, p, _ in index.missing_pages("fake")] == [(1, 3), (2, 1), (2, 2)]
    events = list(embed_missing_pages(store, fake, render_blank, "fake", batch_size=2))
    assert [e.done for e in events] == [2, 3] and events[-1].total == 3
    assert index.missing_pages("fake") == []
    assert index.missing_pages("another-model") != []


def test_a_page_that_fails_to_render_is_reported_and_left_missing(store: Store) -> None:
    add_doc(store, "a", 3)

    def render(doc_id: int, page_no: int) -> Image.Image:
        if page_no == 2:
            raise ValueError("broken page")
        return render_blank(doc_id, page_no)

    events = list(embed_missing_pages(store, FakeColQwen(dim=DIM), render, "fake", batch_size=2))
    assert any("broken page" in e.error for e in events)
    assert [(d, p) for d, p, _ in VisualIndex(store).missing_pages("fake")] == [(1, 2)]


def test_removing_a_document_drops_its_visual_pages_from_search(store: Store) -> None:
    rng = np.random.default_rng(4)
    ids_a, ids_b = add_doc(store, "a", 2), add_doc(store, "b", 2)
    index = VisualIndex(store)
    index.add_pages([(i, random_page(rng)) for i in ids_a + ids_b], "m")
    assert len(index.search(unit(rng, 3), k=10, model="m")) == 4
    store.remove_document(1)
    hits = index.search(unit(rng, 3), k=10, model="m")
    assert {h.document_id for h in hits} == {2}


def test_visual_search_reports_why_it_cannot_run_instead_of_raising(
    store: Store, tmp_path: Path
) -> None:
    assert "no ColQwen model" in VisualSearch(store, None, "m").search("fuse").reason
    missing = TorchColQwen("vidore/not-here", None)
    result = VisualSearch(store, missing, "m").search("fuse")
    assert result.hits == () and "not on this machine" in result.reason
    no_pages = VisualSearch(store, FakeColQwen(dim=DIM), "fake").search("fuse")
    assert "no page is embedded" in no_pages.reason

    class Broken(FakeColQwen):
        def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
            raise ColQwenUnavailable("weights are corrupt")

    add_doc(store, "a", 1)
    list(embed_missing_pages(store, FakeColQwen(dim=DIM), render_blank, "fake"))
    assert VisualSearch(store, Broken(dim=DIM), "fake").search("fuse").reason == (
        "weights are corrupt"
    )
    found = VisualSearch(store, FakeColQwen(dim=DIM), "fake").search("fuse")
    assert found.reason == "" and [(h.document_id, h.page) for h in found.hits] == [(1, 1)]
