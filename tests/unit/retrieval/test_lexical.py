"""BM25 in memory (``lexical``) ranks chunks and pages exactly as FTS5's bm25() does,
phrases of several tokens and headings included, follows the library as documents come
and go, and leaves to FTS5 what it cannot score the same way."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from app.library.models import ChunkDraft
from app.library.store import NewDocument, PageRecord, Store
from app.library.symbols import searchable_text
from app.retrieval import lexical
from app.retrieval.lexical import CHUNKS, PAGES, LexicalIndex
from app.retrieval.query import fts_phrases
from app.retrieval.text import TextSearch

WORDS = """battery charger zone relay siren fuse terminal voltage current cable wiring
the of and to press enter menu setting default code panel output input sensor alarm
charging charged batteries wired sirens café naïve""".split()
CODES = ["13.8 V", "HSGW-MAX8", "AUX+", "12V", "E310", "Li-ion", "★ key", "press ✱ then ▲"]


def document(name: str, rng: np.random.Generator, pages: int = 6, per_page: int = 4) -> NewDocument:
    chunks, texts = [], []
    for p in range(1, pages + 1):
        for _ in range(per_page):
            words = list(rng.choice(WORDS, int(rng.integers(5, 40))))
            if rng.random() < 0.4:
                words.insert(int(rng.integers(len(words))), str(rng.choice(CODES)))
            text = " ".join(words)
            heading = (
                f"{p}.{int(rng.integers(9))} {rng.choice(WORDS).title()}"
                if rng.random() < 0.7
                else ""
            )
            chunks.append(ChunkDraft(page=p, text=text, lines=(), heading=heading))
            texts.append(searchable_text(f"{heading}\n{text}" if heading else text))
    page_records = []
    for p in range(1, pages + 1):
        body = "\n".join(c.text for c in chunks if c.page == p)
        page_records.append(
            PageRecord(p, 595.0, 842.0, body, searchable_text(body), ocr=False, lines=[])
        )
    vectors = rng.standard_normal((len(chunks), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return NewDocument(
        hashlib.sha256(name.encode()).hexdigest(), f"{name}.pdf", name, "",
        page_records, chunks, texts, vectors,
    )  # fmt: skip


class Fixed:
    """An embedder giving every text the same vector (the library's dimension)."""

    name, dim = "test-8", 8

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.full((len(texts), 8), 8**-0.5, np.float32)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        yield self.embed(texts)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "lib")
    store.ensure_embedder("test-8", 8)
    rng = np.random.default_rng(7)
    for name in ("alpha", "beta", "gamma"):
        store.add_document(document(name, rng))
    return store


def queries() -> list[list[str]]:
    rng = np.random.default_rng(3)
    out = [
        fts_phrases(["13.8", "battery"]),
        fts_phrases(["hsgw-max8", "zone", "aux+"]),
        fts_phrases(["charging", "charged", "batteries"]),  # three phrases, one term
        fts_phrases(["star", "key", "arrow"]),  # words the glyphs are indexed as
        fts_phrases(["cafe", "naive"]),  # diacritics removed
        fts_phrases(["li-ion", "nothing", "unheard"]),
        fts_phrases(["xylophone"]),
    ]
    for _ in range(25):
        out.append(fts_phrases(list(rng.choice([*WORDS, "13.8", "12v", "e310"], 4))))
    return out


def fts_chunks(store: Store, phrases: list[str], k: int) -> list[int]:
    match = " OR ".join(f'"{p}"' for p in phrases)
    return [r[0] for r in store.db.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"
        " ORDER BY bm25(chunks_fts, 1.0, 0.5), rowid LIMIT ?", (match, k),
    )]  # fmt: skip


def fts_pages(store: Store, phrases: list[str], k: int) -> list[tuple[int, int]]:
    match = " OR ".join(f'"{p}"' for p in phrases)
    return [(r[0], r[1]) for r in store.db.execute(
        "SELECT p.document_id, p.number FROM pages_fts f JOIN pages p ON p.id = f.rowid"
        " WHERE pages_fts MATCH ? ORDER BY bm25(pages_fts), f.rowid LIMIT ?", (match, k),
    )]  # fmt: skip


def assert_same_as_fts5(store: Store) -> None:
    chunks, pages = LexicalIndex(store, CHUNKS), LexicalIndex(store, PAGES)
    size = store.chunk_count()
    for phrases in queries():
        for k in (5, 120):
            mine = chunks.top(store.db, phrases, k, size)
            assert mine is not None
            assert [c for c, _, _ in mine] == fts_chunks(store, phrases, k), phrases
            on_pages = pages.top(store.db, phrases, k, size)
            assert on_pages is not None
            assert [(d, p) for _, d, p in on_pages] == fts_pages(store, phrases, k), phrases


def test_in_memory_bm25_ranks_as_fts5_does(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical, "THRESHOLD", 0)
    assert fts_chunks(store, fts_phrases(["13.8"]), 5), "the test library holds the phrases"
    assert_same_as_fts5(store)


def test_a_changed_library_is_read_again_a_document_at_a_time(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexical, "THRESHOLD", 0)
    before = lexical.index(store, CHUNKS)
    docs = {d.title: d.id for d in store.list_documents()}
    store.remove_document(docs["beta"])
    store.add_document(document("delta", np.random.default_rng(11), pages=9))
    assert_same_as_fts5(store)
    after = lexical.index(store, CHUNKS)
    assert after.parts[docs["alpha"]] is before.parts[docs["alpha"]], "unchanged: kept"
    assert (
        docs["beta"] not in after.parts
        or after.parts[docs["beta"]] is not before.parts[docs["beta"]]
    )


def test_a_small_library_is_left_to_fts5(store: Store) -> None:
    index = LexicalIndex(store, CHUNKS)
    assert index.top(store.db, ["battery"], 10, store.chunk_count()) is None
    assert index.top(store.db, ["battery"], 10, lexical.THRESHOLD) is not None


def test_text_the_index_holds_otherwise_is_left_to_fts5(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lexical, "THRESHOLD", 0)
    # The chunk index is not told (no update trigger): it holds the old text.
    with store.transaction() as db:
        db.execute(
            "UPDATE chunks SET search_text = 'battery battery'"
            " WHERE id = (SELECT MIN(id) FROM chunks)"
        )
    assert LexicalIndex(store, CHUNKS).top(store.db, ["battery"], 10, 1) is None
    assert LexicalIndex(store, PAGES).top(store.db, ["battery"], 10, 1) is not None


def test_a_search_finds_the_same_pages_either_way(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = Fixed()
    question = "What voltage does the battery charger give on AUX+ (13.8 V)?"
    by_fts5 = TextSearch(store, embedder).search(question)
    monkeypatch.setattr(lexical, "THRESHOLD", 0)
    in_memory = TextSearch(store, embedder)
    in_memory.warm()
    got = in_memory.search(question)
    assert [(p.document_id, p.page, p.score) for p in got.pages] == [
        (p.document_id, p.page, p.score) for p in by_fts5.pages
    ]
    assert got.pages
