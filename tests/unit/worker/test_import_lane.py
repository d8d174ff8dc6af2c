"""The import lane stores each new line's terms after an import (``line_index``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, ImportProgress, ImportResult, import_blocking
from app.library.library import Library
from app.retrieval import line_index
from app.worker.messages import ImportEvent, ImportRequest
from app.worker.work_lanes import ImportLane
from tests.helpers.pdfs import text_manual_pdf


def test_an_import_through_the_lane_leaves_every_line_read(
    tmp_library: Library, tmp_path: Path
) -> None:
    settings = Settings(library_dir=tmp_library.root, ocr_engine="none")
    sent: list[object] = []
    lane = ImportLane(settings, sent.append, 0.0, lambda: None)
    lane.library = tmp_library
    lane._importer = Importer(tmp_library, settings, HashingEmbedder(), ocr=None)
    pdf = text_manual_pdf(tmp_path / "a.pdf", pages=3, title="Alpha Panel Manual")
    cancel = threading.Event()
    lane.cancels.append(cancel)

    lane.handle((ImportRequest((str(pdf),)), cancel))

    events = [m.event for m in sent if isinstance(m, ImportEvent)]
    assert [e.status for e in events if isinstance(e, ImportResult)] == ["imported"]
    indexing = [e for e in events if isinstance(e, ImportProgress) and e.phase == "indexing lines"]
    chunks = tmp_library.store.chunk_count()
    assert chunks > 0 and indexing[-1].done == indexing[-1].total == chunks
    assert line_index.missing(tmp_library.store) == 0


def test_storing_line_terms_gives_way_to_a_waiting_job(
    tmp_library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(library_dir=tmp_library.root, ocr_engine="none")
    importer = Importer(tmp_library, settings, HashingEmbedder(), ocr=None)
    pdf = text_manual_pdf(tmp_path / "a.pdf", pages=3, title="Alpha Panel Manual")
    import_blocking(importer, [pdf])  # imported outside the lane: no terms stored yet
    chunks = tmp_library.store.chunk_count()
    assert chunks > 1 and line_index.missing(tmp_library.store) == chunks
    lane = ImportLane(settings, lambda message: None, 0.0, lambda: None)
    lane.library = tmp_library
    monkeypatch.setattr(line_index, "BATCH", 1)

    lane.put("a job waiting")
    lane._index_lines(threading.Event())
    assert line_index.missing(tmp_library.store) == chunks - 1  # one batch, then the job

    lane.requests.get()
    lane._index_lines(threading.Event())
    assert line_index.missing(tmp_library.store) == 0
