"""The import's visual phase: page vectors for every page, resumable, honest when absent."""

from __future__ import annotations

from pathlib import Path

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, ImportProgress, import_blocking
from app.library.library import Library
from app.library.visual_index import VisualPages as VisualIndex
from app.runtime.colqwen import FakeColQwen
from tests.helpers.pdfs import text_manual_pdf


def _importer(library: Library, **settings: object) -> Importer:
    return Importer(library, Settings(ocr_engine="none", **settings), HashingEmbedder(), ocr=None)


def test_import_embeds_every_page_when_a_colqwen_model_is_set(
    tmp_library: Library, tmp_path: Path
) -> None:
    pdf = text_manual_pdf(tmp_path / "m.pdf", pages=3)
    importer = _importer(tmp_library)
    importer.visual_backend = FakeColQwen()
    events: list[object] = []
    import_blocking(importer, [pdf], events.append)
    visual = [e for e in events if isinstance(e, ImportProgress) and e.phase == "visual embedding"]
    assert visual and visual[-1].done == visual[-1].total > 0
    index = VisualIndex(tmp_library.store)
    assert index.missing_pages("fake-colqwen") == []


def test_an_absent_model_is_reported_and_text_import_still_succeeds(
    tmp_library: Library, tmp_path: Path
) -> None:
    pdf = text_manual_pdf(tmp_path / "m.pdf", pages=3)
    events: list[object] = []
    results = import_blocking(
        _importer(tmp_library, colqwen=str(tmp_path / "no-such-model")), [pdf], events.append
    )
    assert [r.status for r in results] == ["imported"]
    notes = [e.message for e in events if isinstance(e, ImportProgress) and e.message]
    assert any("visual search unavailable" in n for n in notes)
