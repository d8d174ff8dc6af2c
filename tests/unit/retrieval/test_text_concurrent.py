"""Whole-page BM25 runs on a second, read-only connection beside the rest of a search,
with the same results as running it in line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from app.retrieval.text import TextSearch
from tests.helpers.pdfs import text_manual_pdf


class InlineSearch(TextSearch):
    def _side_query(self, fn: Any, *args: Any) -> Any:
        done = fn(self.store.db, *args)
        return lambda: done


def test_the_side_connection_gives_the_same_pages(tmp_library: Library, tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    pdf = text_manual_pdf(tmp_path / "a.pdf", pages=3, title="Alpha Panel Manual")
    importer = Importer(tmp_library, Settings(ocr_engine="none"), embedder, ocr=None)
    assert [r.status for r in import_blocking(importer, [pdf])] == ["imported"]
    side, inline = (
        TextSearch(tmp_library.store, embedder),
        InlineSearch(tmp_library.store, embedder),
    )
    question = "terminal wiring table"

    first = side.search(question)

    assert side._side is not None, "a file library gets its second connection"
    assert [(p.page, p.score) for p in first.pages] == [
        (p.page, p.score) for p in inline.search(question).pages
    ]
    side.close()
    assert side._side is None
    assert [p.page for p in side.search(question).pages] == [p.page for p in first.pages]
    side.close()
