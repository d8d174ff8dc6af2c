"""Limiting a search to some manuals keeps every other manual's pages out."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from app.retrieval.text import TextSearch
from tests.helpers.pdfs import text_manual_pdf


def test_documents_filter_holds_for_whole_page_matches(
    tmp_library: Library, tmp_path: Path
) -> None:
    embedder = HashingEmbedder()
    a = text_manual_pdf(tmp_path / "a.pdf", pages=2, title="Alpha Panel Manual")
    b = text_manual_pdf(tmp_path / "b.pdf", pages=2, title="Beta Panel Manual")
    importer = Importer(tmp_library, Settings(ocr_engine="none"), embedder, ocr=None)
    results = import_blocking(importer, [a, b])
    first = results[0].document_id
    assert first is not None
    search = TextSearch(tmp_library.store, embedder)
    hits = search.search("terminal wiring table", k=10, documents=[first]).pages
    assert hits and {h.document_id for h in hits} == {first}
