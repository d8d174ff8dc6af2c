"""A search keeps the document list and the terms' chunk counts between searches, and
reads them again once the library has changed."""

from __future__ import annotations

from app.library.embedding import HashingEmbedder
from app.library.models import ChunkDraft, TextLine
from app.library.store import NewDocument, PageRecord, Store
from app.retrieval.text import TextSearch


def _document(embedder: HashingEmbedder, sha: str, name: str, text: str) -> NewDocument:
    line = TextLine(text, (72.0, 100.0, 400.0, 112.0), 10.0, False)
    chunk = ChunkDraft(page=1, text=text, lines=(line,), heading="1. Wiring")
    page = PageRecord(1, 595.0, 842.0, text, text, False, [line])
    return NewDocument(
        sha * 64, name, name.removesuffix(".pdf"), "", [page], [chunk], [text],
        embedder.embed([text]),
    )  # fmt: skip


def test_a_manual_added_between_searches_is_searched_and_counted(store: Store) -> None:
    embedder = HashingEmbedder()
    store.add_document(_document(embedder, "a", "Panel.pdf", "Battery 12 V 7 Ah backup."))
    search = TextSearch(store, embedder)
    question = "siren tamper switch"

    before = search.search(question)
    assert search._chunk_df.get("siren", 0) is None  # no chunk holds it yet
    added = store.add_document(
        _document(embedder, "b", "Siren.pdf", "Siren tamper switch: wire it to TMP.")
    )
    after = search.search(question)

    assert all(p.document_id != added for p in before.pages)
    assert after.pages[0].document_id == added
    assert search._chunk_df["siren"] == 1
    assert [d.id for d in search._documents] == [d.id for d in store.list_documents()]


def test_a_word_the_library_prints_again_and_again_where_it_prints_it_weighs_more(
    store: Store,
) -> None:
    embedder = HashingEmbedder()
    store.add_document(
        _document(
            embedder, "a", "Drive.pdf",
            "Press MENU, then press SET. Press and hold to save. Keep the cover on. Code 374.",
        )
    )  # fmt: skip
    store.add_document(
        _document(embedder, "b", "Meter.pdf", "Press the key twice; press once to keep.")
    )
    search = TextSearch(store, embedder)
    # "press": 5 times on 2 pages; "keep": once on each page that prints it.
    assert search.burstiness("press") > 0.9
    assert search.burstiness("keep") == 0.25
    # A word no page prints (a code written otherwise) keeps its full weight.
    assert search.burstiness("xq-17") == 1.0
    # A code a page prints once ("Code 374") still names the one row that explains it.
    assert search.burstiness("374") == 1.0
