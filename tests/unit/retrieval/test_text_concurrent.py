"""Whole-page BM25 runs on a second, read-only connection, and the embedding and vector
search in a thread, beside the rest of a search, with the same results as running them
in line."""

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
    def _in_thread(self, fn: Any, *args: Any) -> Any:
        done = fn(*args)
        return lambda: done

    def _side_query(self, fn: Any, *args: Any, reader: int) -> Any:
        return self._in_thread(fn, self.store.db, *args)


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

    assert len(side._readers) == 1, "a file library gets its second connection"
    assert side._pool is not None
    again = inline.search(question)
    assert inline._readers == [] and inline._pool is None
    assert [(p.page, p.score) for p in first.pages] == [(p.page, p.score) for p in again.pages]
    assert set(first.timings) == set(again.timings) >= {"embed", "knn", "bm25", "total"}
    side.close()
    assert side._readers == [] and side._pool is None
    assert [p.page for p in side.search(question).pages] == [p.page for p in first.pages]
    side.close()


def test_a_small_library_s_vector_search_stays_on_the_store_s_thread(
    tmp_library: Library, tmp_path: Path, monkeypatch: Any
) -> None:
    """sqlite-vec's exact scan runs on the store's connection, which the full-text
    queries use meanwhile, and apsw refuses a statement while another thread's runs on
    the same connection: only the embedding may run beside them."""
    import threading

    import app.retrieval.vectors as vectors

    embedder = HashingEmbedder()
    pdf = text_manual_pdf(tmp_path / "a.pdf", pages=3, title="Alpha Panel Manual")
    importer = Importer(tmp_library, Settings(ocr_engine="none"), embedder, ocr=None)
    assert [r.status for r in import_blocking(importer, [pdf])] == ["imported"]
    threads: list[str] = []
    exact = vectors.exact_knn

    def recording(*args: Any) -> Any:
        threads.append(threading.current_thread().name)
        return exact(*args)

    monkeypatch.setattr(vectors, "exact_knn", recording)
    search = TextSearch(tmp_library.store, embedder)
    assert not search.vectors.detached()
    result = search.search("terminal wiring table")
    assert threads == [threading.current_thread().name]
    assert result.pages and {"embed", "knn"} <= set(result.timings)
    # Above the threshold the in-memory snapshot runs beside, touching no connection.
    monkeypatch.setattr(vectors, "BINARY_THRESHOLD", 1)
    assert search.vectors.detached()
    assert [p.page for p in search.search("terminal wiring table").pages]
    assert len(threads) == 1
    search.close()
