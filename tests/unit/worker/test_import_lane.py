"""The import lane stores each new line's terms after an import (``line_index``), and
reads manuals again in place (a re-index, or what an older version read)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.import_events import READ_AGAIN
from app.library.importer import (
    EXTRACTION,
    Importer,
    ImportProgress,
    ImportResult,
    import_blocking,
)
from app.library.library import Library
from app.retrieval import line_index
from app.worker.messages import (
    ImportEvent,
    ImportQueued,
    ImportRequest,
    ReindexRequest,
    RereadStale,
)
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


def _lane(library: Library, sent: list[object]) -> ImportLane:
    settings = Settings(library_dir=library.root, ocr_engine="none")
    lane = ImportLane(settings, sent.append, 0.0, lambda: None)
    lane.library = library
    lane._importer = Importer(library, settings, HashingEmbedder(), ocr=None)
    return lane


def _handle(lane: ImportLane, job: object) -> None:
    cancel = threading.Event()
    lane.cancels.append(cancel)
    lane.handle((job, cancel))


def _as_read_by_an_older_version(library: Library) -> None:
    library.store.db.execute("UPDATE documents SET extraction = 0, title = 'CONTENT'")


def _two_stale_manuals(library: Library, tmp_path: Path) -> tuple[ImportLane, list[object]]:
    """A lane over a library holding a.pdf and b.pdf as an older version read them, and
    the messages it sends."""
    sent: list[object] = []
    lane = _lane(library, sent)
    pdfs = [text_manual_pdf(tmp_path / f"{n}.pdf", title=f"{n} Manual") for n in ("a", "b")]
    import_blocking(lane.importer(), pdfs)
    _as_read_by_an_older_version(library)
    return lane, sent


def _results(sent: list[object]) -> list[ImportResult]:
    events = [m.event for m in sent if isinstance(m, ImportEvent)]
    return [e for e in events if isinstance(e, ImportResult)]


def test_reindexing_a_manual_reads_it_again_in_place(tmp_library: Library, tmp_path: Path) -> None:
    sent: list[object] = []
    lane = _lane(tmp_library, sent)
    pdf = text_manual_pdf(tmp_path / "a.pdf", pages=3, title="Alpha Panel Manual")
    import_blocking(lane.importer(), [pdf])
    (doc,) = tmp_library.store.list_documents()
    _as_read_by_an_older_version(tmp_library)

    _handle(lane, ReindexRequest(doc.id))

    (again,) = tmp_library.store.list_documents()
    assert (again.id, again.file_name, again.title) == (doc.id, "a.pdf", "Alpha Panel Manual")
    queued = [m.paths for m in sent if isinstance(m, ImportQueued)]
    results = _results(sent)
    assert queued == [("a.pdf",)]
    assert [(r.path, r.status, r.reason, r.pages) for r in results] == [
        ("a.pdf", "imported", READ_AGAIN, 3)
    ]


def test_manuals_an_older_version_read_are_read_again_giving_way_to_a_waiting_job(
    tmp_library: Library, tmp_path: Path
) -> None:
    lane, _ = _two_stale_manuals(tmp_library, tmp_path)
    stale = len(tmp_library.store.read_before(EXTRACTION))
    assert stale == 2

    lane.put("a job waiting")
    lane._reread_stale(threading.Event())  # gives way at once, and comes back after it
    assert len(tmp_library.store.read_before(EXTRACTION)) == 2
    assert lane.requests.get() == "a job waiting"
    job, cancel = lane.requests.get()
    assert isinstance(job, RereadStale)

    lane.handle((job, cancel))

    assert tmp_library.store.read_before(EXTRACTION) == []
    assert [d.title for d in tmp_library.store.list_documents()] == ["a Manual", "b Manual"]


def test_a_manual_whose_copy_is_gone_is_left_as_it_is_and_the_others_are_read_again(
    tmp_library: Library, tmp_path: Path
) -> None:
    lane, sent = _two_stale_manuals(tmp_library, tmp_path)
    first = tmp_library.store.list_documents()[0]
    tmp_library.pdf_path(first).unlink()

    _handle(lane, RereadStale())

    results = _results(sent)
    # No failed row at every start: the command line says why (``reindex --stale``).
    assert [(r.path, r.status) for r in results] == [("b.pdf", "imported")]
    assert [d.id for d in tmp_library.store.read_before(EXTRACTION)] == [first.id]


def test_reindexing_a_manual_whose_copy_is_gone_fails_with_its_reason(
    tmp_library: Library, tmp_path: Path
) -> None:
    sent: list[object] = []
    lane = _lane(tmp_library, sent)
    import_blocking(lane.importer(), [text_manual_pdf(tmp_path / "a.pdf", title="A Manual")])
    (doc,) = tmp_library.store.list_documents()
    tmp_library.pdf_path(doc).unlink()

    _handle(lane, ReindexRequest(doc.id))

    (result,) = _results(sent)
    assert result.status == "failed" and "copy of a.pdf is missing" in result.reason
    assert tmp_library.store.get_document(doc.id) == doc
