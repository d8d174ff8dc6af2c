"""The library database: documents written whole, found, listed, removed, and checked."""

from __future__ import annotations

from pathlib import Path

import apsw
import numpy as np
import pytest

from app.library.embedding import HashingEmbedder
from app.library.models import ChunkDraft, ManualProfile, TextLine
from app.library.store import NewDocument, PageRecord, Store, StoreError


def line(text: str, y: float = 100.0) -> TextLine:
    return TextLine(text, (72.0, y, 72.0 + 5.5 * len(text), y + 12.0), 10.0, False)


def new_document(
    embedder: HashingEmbedder,
    sha: str = "a" * 64,
    name: str = "Panel_Install.pdf",
    pages: tuple[str, ...] = ("Jumper J24 selects 12 V on the PGM output.", "Battery 12 V 7 Ah."),
    ocr_pages: int = 0,
) -> NewDocument:
    records = [
        PageRecord(
            number=n,
            width=595.0,
            height=842.0,
            text=text,
            search_text=text,
            ocr=n <= ocr_pages,
            lines=[line(text)],
            thumbnail=b"\x89PNG fake",
        )
        for n, text in enumerate(pages, start=1)
    ]
    chunks = [
        ChunkDraft(page=n, text=text, lines=(line(text),), heading="3. Wiring")
        for n, text in enumerate(pages, start=1)
    ]
    texts = [c.text for c in chunks]
    return NewDocument(
        sha256=sha,
        file_name=name,
        title=name.removesuffix(".pdf").replace("_", " "),
        source_path=f"documents/{sha}.pdf",
        pages=records,
        chunks=chunks,
        chunk_search_texts=texts,
        vectors=embedder.embed(texts),
        profile=ManualProfile(product="AX-200", manual_type="installation", topics=("Wiring",)),
    )


def fts(store: Store, query: str) -> list[int]:
    return [r[0] for r in store.db.execute(
        "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank", (query,)
    )]  # fmt: skip


def nearest(store: Store, vector: np.ndarray, k: int = 5) -> list[int]:
    rows = store.db.execute(
        "SELECT rowid FROM vec_chunks WHERE embedding MATCH ? AND k = ? ORDER BY distance",
        (np.asarray(vector, np.float32).tobytes(), k),
    )
    return [r[0] for r in rows]


def test_a_new_store_is_empty_and_sound(store: Store) -> None:
    assert store.list_documents() == []
    assert store.chunk_count() == 0
    assert store.check_integrity() == []


def test_a_document_is_listed_with_its_pages_ocr_count_and_profile(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    doc_id = store.add_document(new_document(hashing_embedder, ocr_pages=1))

    (doc,) = store.list_documents()
    assert doc.id == doc_id
    assert (doc.file_name, doc.title, doc.pages, doc.ocr_pages) == (
        "Panel_Install.pdf", "Panel Install", 2, 1,
    )  # fmt: skip
    assert doc.profile.product == "AX-200"
    assert doc.profile.manual_type == "installation"
    assert doc.profile.topics == ("Wiring",)
    assert doc.imported_at.endswith("Z")
    assert store.check_integrity() == []


def test_pages_keep_their_text_lines_boxes_and_thumbnail(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    doc_id = store.add_document(new_document(hashing_embedder))

    assert store.page_text(doc_id, 1) == "Jumper J24 selects 12 V on the PGM output."
    assert store.page_size(doc_id, 2) == (595.0, 842.0)
    (stored,) = store.page_lines(doc_id, 1)
    assert stored.text == "Jumper J24 selects 12 V on the PGM output."
    assert stored.box == pytest.approx(line(stored.text).box, abs=0.01)
    assert store.thumbnail(doc_id, 1) == b"\x89PNG fake"
    assert store.page_text(doc_id, 3) is None


def test_chunks_are_found_by_words_and_by_vector(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    doc_id = store.add_document(new_document(hashing_embedder))
    (first,) = store.page_chunks(doc_id, 1)

    assert fts(store, "J24") == [first.id]
    assert first.heading == "3. Wiring"
    assert first.lines[0].text.startswith("Jumper J24")
    query = hashing_embedder.embed(["Jumper J24 selects 12 V on the PGM output."])[0]
    assert nearest(store, query)[0] == first.id


def test_a_document_is_found_by_hash_id_name_title_or_hash_prefix(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    doc_id = store.add_document(new_document(hashing_embedder, sha="ab12cd34" + "0" * 56))

    assert store.find_by_hash("ab12cd34" + "0" * 56).id == doc_id
    assert store.find_by_hash("f" * 64) is None
    for ref in (doc_id, str(doc_id), "Panel_Install.pdf", "Panel Install", "ab12cd34"):
        assert store.get_document(ref).id == doc_id, ref
    assert store.get_document("ab12") is None  # too short a prefix to mean one document
    assert store.get_document("Other.pdf") is None


def test_an_ambiguous_reference_matches_nothing(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    store.add_document(new_document(hashing_embedder, sha="ab12cd34" + "0" * 56))
    store.add_document(new_document(hashing_embedder, sha="ab12cd34" + "1" * 56, name="B.pdf"))

    assert store.get_document("ab12cd34") is None
    assert store.get_document("ab12cd340") is not None


def test_removing_a_document_removes_its_pages_chunks_and_search_entries(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    keep = store.add_document(new_document(hashing_embedder, sha="b" * 64, name="Keep.pdf",
                                           pages=("Siren output BELL 1 A.",)))  # fmt: skip
    gone = store.add_document(new_document(hashing_embedder))
    query = hashing_embedder.embed(["Jumper J24 selects 12 V on the PGM output."])[0]

    assert store.remove_document(gone) is True

    assert [d.id for d in store.list_documents()] == [keep]
    assert fts(store, "J24") == []
    assert store.page_text(gone, 1) is None
    kept_chunks = {c.id for c in store.page_chunks(keep, 1)}
    assert set(nearest(store, query)) == kept_chunks
    assert fts(store, "siren") == list(kept_chunks)
    assert store.check_integrity() == []
    assert store.remove_document(gone) is False


def test_a_document_that_fails_to_write_leaves_nothing_behind(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    store.add_document(new_document(hashing_embedder))
    before = store.chunk_count()

    # Same hash again: the documents row is refused, and nothing else of it may remain.
    with pytest.raises(apsw.ConstraintError):
        store.add_document(new_document(hashing_embedder, name="Copy.pdf"))
    bad = new_document(hashing_embedder, sha="c" * 64)
    bad.chunk_search_texts = bad.chunk_search_texts[:1]
    with pytest.raises(StoreError):
        store.add_document(bad)

    assert [d.file_name for d in store.list_documents()] == ["Panel_Install.pdf"]
    assert store.chunk_count() == before
    assert store.check_integrity() == []


def test_vectors_from_another_embedder_are_refused_until_re_embedded(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    store.ensure_embedder(hashing_embedder.name, hashing_embedder.dim)
    store.add_document(new_document(hashing_embedder))

    with pytest.raises(StoreError, match="re-embed"):
        store.ensure_embedder("all-MiniLM-L6-v2", 384)
    with pytest.raises(StoreError, match="dimensions"):
        store.ensure_vector_index(384)


def test_re_embedding_replaces_every_vector(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    store.add_document(new_document(hashing_embedder))
    small = HashingEmbedder(dim=64)
    rows = store.all_chunk_texts()

    store.replace_vectors([cid for cid, _ in rows], small.embed([t for _, t in rows]), small.name)

    assert store.embedder_name() == "hashing-64"
    assert store.vector_dim() == 64
    battery = small.embed(["Battery 12 V 7 Ah."])[0]
    assert nearest(store, battery)[0] == rows[1][0]
    assert store.check_integrity() == []


def test_integrity_check_reports_a_document_missing_pages(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    doc_id = store.add_document(new_document(hashing_embedder))
    store.db.execute("DELETE FROM pages WHERE document_id = ? AND number = 2", (doc_id,))

    assert store.check_integrity() == [f"document {doc_id}: 1 pages stored, 2 expected"]


def test_a_library_reopens_with_its_documents(
    tmp_path: Path, hashing_embedder: HashingEmbedder
) -> None:
    first = Store.open(tmp_path / "lib")
    first.add_document(new_document(hashing_embedder))
    first.close()

    again = Store.open(tmp_path / "lib")
    assert [d.file_name for d in again.list_documents()] == ["Panel_Install.pdf"]
    assert fts(again, "battery")
    again.close()


def test_a_damaged_database_file_is_a_clear_store_error(tmp_path: Path) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "library.db").write_bytes(b"not a database at all " * 200)

    with pytest.raises(StoreError, match=r"library\.db"):
        Store.open(folder)


def test_a_library_folder_that_cannot_be_created_is_a_clear_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")

    with pytest.raises(StoreError, match="cannot create library folder"):
        Store.open(blocker / "lib")


def test_several_pages_read_at_once_hold_what_each_page_read_alone_does(
    store: Store, hashing_embedder: HashingEmbedder
) -> None:
    first = store.add_document(new_document(hashing_embedder))
    second = store.add_document(new_document(hashing_embedder, sha="b" * 64, name="Other.pdf"))
    keys = [(second, 1), (first, 1), (first, 99)]

    pages = store.pages_chunks(keys)

    assert list(pages) == keys
    for doc_id, page in keys:
        assert pages[(doc_id, page)] == store.page_chunks(doc_id, page)
    assert pages[(first, 1)] and pages[(first, 99)] == []
    assert store.pages_chunks([]) == {}
