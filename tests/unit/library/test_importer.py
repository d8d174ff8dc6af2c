"""The import pipeline, in process: what a technician sees when PDFs go into the library.

Uses the hashing embedder (no model) and no OCR engine unless a test needs one.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import apsw
import numpy as np
import pymupdf
import pytest

from app.config import Settings
from app.library import importer as importer_module
from app.library.embedding import HashingEmbedder
from app.library.images import RenderError
from app.library.importer import Importer, ImportEvent, ImportProgress, ImportResult
from app.library.library import Library
from app.library.models import Word
from app.library.ocr import OcrLine
from app.library.vector_rows import document_signatures
from tests.helpers import pdfs

PHASE_ORDER = ["hashing", "reading text", "OCR", "embedding", "page images", "saving"]


@pytest.fixture
def importer(tmp_library: Library, hashing_embedder: HashingEmbedder) -> Importer:
    settings = Settings(library_dir=tmp_library.root, ocr_engine="none")
    return Importer(tmp_library, settings, embedder=hashing_embedder, ocr=None)


def run(
    importer: Importer,
    paths: Iterable[Path],
    on_event: Callable[[ImportEvent], None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[list[ImportResult], list[ImportProgress]]:
    results, progress = [], []
    for event in importer.import_paths(list(paths), cancel):
        if on_event is not None:
            on_event(event)
        if isinstance(event, ImportResult):
            results.append(event)
        else:
            progress.append(event)
    return results, progress


def snapshot(library: Library) -> tuple[object, ...]:
    """What a user could observe of a library: documents, chunks, pages, files kept."""
    store = library.store
    docs = tuple((d.id, d.sha256, d.pages) for d in store.list_documents())
    pages = store.db.execute("SELECT COUNT(*) FROM pages").fetchone()[0]
    files = tuple(sorted(p.name for p in library.documents_dir.glob("*")))
    return docs, store.chunk_count(), pages, files


def fts(library: Library, query: str) -> list[tuple[int, int]]:
    """(document id, page) of the chunks the full-text index finds for ``query``."""
    rows = library.store.db.execute(
        "SELECT c.document_id, c.page FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
        " WHERE chunks_fts MATCH ? ORDER BY rank",
        (query,),
    )
    return [(r[0], r[1]) for r in rows]


@pytest.fixture
def manual(tmp_path: Path) -> Path:
    return pdfs.text_manual_pdf(tmp_path / "AX-200_Install.pdf", pages=3)


@pytest.fixture
def other_manual(tmp_path: Path) -> Path:
    return pdfs.text_manual_pdf(tmp_path / "BX-10_User.pdf", pages=2, title="BX-10 User Manual")


# ---- a good manual ---------------------------------------------------------------------


def test_a_manual_is_imported_with_its_pages_chunks_thumbnail_and_copy(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    (result,), _ = run(importer, [manual])

    assert (result.status, result.reason, result.pages, result.ocr_pages) == ("imported", "", 3, 0)
    assert result.title == pdfs.TITLE
    (doc,) = tmp_library.store.list_documents()
    assert (doc.id, doc.file_name, doc.title, doc.pages) == (
        result.document_id,
        "AX-200_Install.pdf",
        pdfs.TITLE,
        3,
    )
    assert doc.profile.manual_type == "installation"
    assert "J24" in (tmp_library.store.page_text(doc.id, 2) or "")
    assert fts(tmp_library, "pageword3") == [(doc.id, 3)]
    assert tmp_library.store.thumbnail(doc.id, 1).startswith(b"\x89PNG")
    assert tmp_library.pdf_path(doc).read_bytes() == manual.read_bytes()
    assert tmp_library.store.check_integrity() == []


def test_chunks_remember_their_page_and_boxes_inside_it(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    (result,), _ = run(importer, [manual])

    chunks = tmp_library.store.page_chunks(result.document_id, 1)
    assert chunks
    tables = [c for c in chunks if c.kind == "table"]
    assert [c.text.split("\n")[0] for c in tables] == ["Terminal | Function | Rating"]
    for chunk in chunks:
        for line in chunk.lines:
            x0, y0, x1, y1 = line.box
            assert 0 <= x0 < x1 <= pdfs.A4.width and 0 <= y0 < y1 <= pdfs.A4.height


def test_a_key_glyph_is_found_by_the_word_for_it(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    (result,), _ = run(importer, [manual])

    assert (result.document_id, 1) in fts(tmp_library, "star")
    (chunk,) = [c for c in tmp_library.store.page_chunks(result.document_id, 1) if "✱" in c.text]
    assert "(star)" not in chunk.text  # the reader sees the glyph; only the index has the word


def test_progress_runs_through_the_phases_in_order_and_completes(
    importer: Importer, manual: Path
) -> None:
    _, progress = run(importer, [manual])

    phases = [p.phase for p in progress]
    seen = list(dict.fromkeys(phases))
    assert seen == ["hashing", "reading text", "embedding", "page images", "saving"]
    assert seen == sorted(seen, key=PHASE_ORDER.index)
    last = {p.phase: p for p in progress}
    assert all(p.done == p.total for p in last.values() if p.phase != "hashing")
    pages = [p for p in progress if p.phase == "reading text"]
    assert [p.done for p in pages] == [1, 2, 3]
    assert all(p.total == 3 for p in pages)


def test_the_same_file_again_under_another_name_is_recognised_and_skipped(
    importer: Importer, tmp_library: Library, manual: Path, tmp_path: Path
) -> None:
    run(importer, [manual])
    before = snapshot(tmp_library)
    renamed = tmp_path / "copy of manual.pdf"
    renamed.write_bytes(manual.read_bytes())

    results, _ = run(importer, [manual, renamed])

    assert [r.status for r in results] == ["skipped", "skipped"]
    assert all("already in the library as AX-200_Install.pdf" in r.reason for r in results)
    assert results[0].pages == 3
    assert snapshot(tmp_library) == before


def test_a_folder_imports_every_pdf_in_it_and_ignores_other_files(
    importer: Importer, tmp_library: Library, tmp_path: Path
) -> None:
    folder = tmp_path / "binder"
    (folder / "wiring").mkdir(parents=True)
    pdfs.text_manual_pdf(folder / "a.pdf", title="Manual A")
    pdfs.text_manual_pdf(folder / "wiring" / "b.PDF", pages=2, title="Manual B")
    (folder / "notes.txt").write_text("not a manual")

    results, _ = run(importer, [folder])

    assert [(Path(r.path).name, r.status) for r in results] == [("a.pdf", "imported"),
                                                               ("b.PDF", "imported")]  # fmt: skip
    assert sorted(d.title for d in tmp_library.store.list_documents()) == ["Manual A", "Manual B"]


# ---- bad inputs ------------------------------------------------------------------------


def _empty(path: Path) -> Path:
    path.write_bytes(b"")
    return path


def _missing(path: Path) -> Path:
    return path


BAD_INPUTS = {
    "not a pdf": (pdfs.not_a_pdf, "not a PDF file"),
    "empty file": (_empty, "the file is empty"),
    "truncated": (pdfs.truncated_pdf, "damaged|truncated"),
    "password": (pdfs.password_pdf, "password-protected"),
    "zero pages": (pdfs.zero_page_pdf, "has no pages"),
    "missing": (_missing, "file not found"),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_a_bad_file_gets_a_one_line_reason_changes_nothing_and_the_batch_goes_on(
    case: str,
    importer: Importer,
    tmp_library: Library,
    manual: Path,
    other_manual: Path,
    tmp_path: Path,
) -> None:
    build, reason = BAD_INPUTS[case]
    bad = build(tmp_path / "bad.pdf")
    run(importer, [manual])
    before = snapshot(tmp_library)

    results, _ = run(importer, [bad, other_manual])

    assert [r.status for r in results] == ["failed", "imported"]
    failure = results[0]
    assert failure.path == str(bad)
    assert "\n" not in failure.reason
    assert failure.reason.strip()
    assert "Traceback" not in failure.reason
    assert re.search(reason, failure.reason), failure.reason
    docs = tmp_library.store.list_documents()
    assert [d.file_name for d in docs] == ["AX-200_Install.pdf", "BX-10_User.pdf"]
    assert tmp_library.store.check_integrity() == []
    # Everything the library held before is untouched.
    tmp_library.remove(docs[1].id)
    assert snapshot(tmp_library) == before


def test_a_file_deleted_before_its_turn_fails_alone(
    importer: Importer, tmp_library: Library, manual: Path, other_manual: Path
) -> None:
    def delete_second(event: ImportEvent) -> None:
        if isinstance(event, ImportProgress) and event.path == str(manual):
            other_manual.unlink(missing_ok=True)

    results, _ = run(importer, [manual, other_manual], on_event=delete_second)

    assert [r.status for r in results] == ["imported", "failed"]
    assert results[1].reason == "file not found (moved or deleted?)"
    assert [d.file_name for d in tmp_library.store.list_documents()] == ["AX-200_Install.pdf"]


def test_a_file_deleted_while_it_imports_is_imported_from_what_was_read(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    data = manual.read_bytes()

    def delete_it(event: ImportEvent) -> None:
        if isinstance(event, ImportProgress) and event.phase == "reading text":
            manual.unlink(missing_ok=True)

    (result,), _ = run(importer, [manual], on_event=delete_it)

    assert (result.status, result.reason) == ("imported", "")
    (doc,) = tmp_library.store.list_documents()
    assert tmp_library.pdf_path(doc).read_bytes() == data


def test_a_page_that_cannot_be_read_fails_its_file_only(
    importer: Importer,
    tmp_library: Library,
    manual: Path,
    other_manual: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_read = importer_module.read_page

    def read_page(page, *args, **kwargs):  # type: ignore[no-untyped-def]
        if page.parent.page_count == 3 and page.number == 1:
            raise RuntimeError("syntax error in content stream")
        return real_read(page, *args, **kwargs)

    monkeypatch.setattr(importer_module, "read_page", read_page)

    results, _ = run(importer, [manual, other_manual])

    assert [r.status for r in results] == ["failed", "imported"]
    assert results[0].reason.startswith("page 2 is damaged and cannot be read")
    assert [d.file_name for d in tmp_library.store.list_documents()] == ["BX-10_User.pdf"]
    assert sorted(p.name for p in tmp_library.documents_dir.iterdir()) == [
        f"{tmp_library.store.list_documents()[0].sha256}.pdf"
    ]


def test_a_page_that_cannot_be_rendered_is_imported_without_its_image_and_a_warning(
    importer: Importer, tmp_library: Library, manual: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_render = importer_module.render_thumbnail

    def render_thumbnail(page, width):  # type: ignore[no-untyped-def]
        if page.number == 1:
            raise RenderError("page 2: cannot render (broken image stream)")
        return real_render(page, width)

    monkeypatch.setattr(importer_module, "render_thumbnail", render_thumbnail)

    (result,), _ = run(importer, [manual])

    assert result.status == "imported"
    assert result.warnings == ("page 2: cannot render (broken image stream)",)
    store = tmp_library.store
    assert store.thumbnail(result.document_id, 2) is None
    assert store.thumbnail(result.document_id, 1) is not None
    assert fts(tmp_library, "pageword2") == [(result.document_id, 2)]


def test_a_failure_while_saving_leaves_neither_rows_nor_a_stray_copy(
    importer: Importer, tmp_library: Library, manual: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(doc: object) -> int:
        raise apsw.FullError("database or disk is full")

    monkeypatch.setattr(tmp_library.store, "add_document", disk_full)

    (result,), _ = run(importer, [manual])

    assert result.status == "failed"
    assert "disk is full" in result.reason
    assert tmp_library.store.list_documents() == []
    reopened = Library.open(tmp_library.root)
    assert list(reopened.documents_dir.iterdir()) == []
    reopened.close()


def test_stopping_an_import_keeps_what_finished_and_writes_nothing_of_the_rest(
    importer: Importer, tmp_library: Library, manual: Path, other_manual: Path
) -> None:
    cancel = threading.Event()

    def stop_during_second(event: ImportEvent) -> None:
        mine = isinstance(event, ImportProgress) and event.path == str(other_manual)
        if mine and event.phase == "embedding":
            cancel.set()

    results, _ = run(importer, [manual, other_manual], stop_during_second, cancel)

    assert [(r.status, r.reason) for r in results] == [
        ("imported", ""),
        ("failed", "import stopped by the user"),
    ]
    assert [d.file_name for d in tmp_library.store.list_documents()] == ["AX-200_Install.pdf"]
    assert tmp_library.store.check_integrity() == []


# ---- scans -----------------------------------------------------------------------------


def test_a_scan_without_an_ocr_engine_still_imports_its_pages(
    importer: Importer, tmp_library: Library, tmp_path: Path
) -> None:
    scan = pdfs.scanned_pdf(tmp_path / "scan.pdf", pages=2)

    (result,), _ = run(importer, [scan])

    assert (result.status, result.pages, result.ocr_pages) == ("imported", 2, 0)
    assert tmp_library.store.thumbnail(result.document_id, 2) is not None


class ScriptedOcr:
    """An OCR engine that 'reads' fixed lines, one under the other, and counts its calls."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        self.lines = lines
        self.pages: list[int] = []

    def recognize(self, page: pymupdf.Page, dpi: int) -> list[OcrLine]:
        self.pages.append(page.number + 1)
        out = []
        for i, text in enumerate(self.lines):
            box = (20.0, 28.0 + 30 * i, 20.0 + 7 * len(text), 42.0 + 30 * i)
            words = tuple(Word(w, box) for w in text.split())
            out.append(OcrLine(text, box, 0.95, words))
        return out


def test_a_garbage_text_layer_is_replaced_by_ocr_text(
    tmp_library: Library, hashing_embedder: HashingEmbedder, tmp_path: Path
) -> None:
    engine = ScriptedOcr(pdfs.NOTE_LINES)
    importer = Importer(tmp_library, embedder=hashing_embedder, ocr=engine)
    scan = pdfs.scanned_note_pdf(tmp_path / "old.pdf", garbage_layer=True)
    text_page = pdfs.text_manual_pdf(tmp_path / "new.pdf")

    results, progress = run(importer, [scan, text_page])

    assert [(r.status, r.ocr_pages) for r in results] == [("imported", 1), ("imported", 0)]
    assert engine.pages == [1]  # the good text layer is not OCR'd
    ocr_progress = [p for p in progress if p.phase == "OCR"]
    assert ocr_progress[-1].done == ocr_progress[-1].total == 1
    old = tmp_library.store.list_documents()[0]
    assert old.ocr_pages == 1
    assert tmp_library.store.page_text(old.id, 1) == "\n".join(pdfs.NOTE_LINES)
    assert (old.id, 1) in fts(tmp_library, "J24")
    assert fts(tmp_library, "STA1lATION") == []
    (line, *_) = tmp_library.store.page_lines(old.id, 1)
    assert line.box == (20.0, 28.0, 20.0 + 7 * len(pdfs.NOTE_LINES[0]), 42.0)


def test_a_scanned_page_is_read_by_rapidocr_and_becomes_searchable(
    tmp_library: Library, hashing_embedder: HashingEmbedder, tmp_path: Path
) -> None:
    from app.library.ocr import OcrUnavailableError, make_ocr_engine

    try:
        engine = make_ocr_engine("rapidocr")
    except OcrUnavailableError as exc:
        pytest.skip(str(exc))
    importer = Importer(tmp_library, embedder=hashing_embedder, ocr=engine)
    scan = pdfs.scanned_note_pdf(tmp_path / "scan.pdf")

    (result,), _ = run(importer, [scan])

    assert (result.status, result.pages, result.ocr_pages) == ("imported", 1, 1)
    assert (result.document_id, 1) in fts(tmp_library, "J24")
    lines = tmp_library.store.page_lines(result.document_id, 1)
    assert any("J24" in ln.text for ln in lines)
    for ln in lines:  # boxes in PDF points on the 320-point-wide card
        assert 0 <= ln.box[0] < ln.box[2] <= 321


# ---- the library around imports --------------------------------------------------------


def test_switching_embedder_re_embeds_what_is_already_there(
    tmp_library: Library, hashing_embedder: HashingEmbedder, manual: Path, other_manual: Path
) -> None:
    run(Importer(tmp_library, embedder=hashing_embedder, ocr=None), [manual])
    small = HashingEmbedder(dim=64)

    results, progress = run(Importer(tmp_library, embedder=small, ocr=None), [other_manual])

    assert [r.status for r in results] == ["imported"]
    assert any("re-embedding with hashing-64" in p.message for p in progress)
    store = tmp_library.store
    assert (store.embedder_name(), store.vector_dim()) == ("hashing-64", 64)
    query = small.embed(["pageword3"])[0].astype(np.float32).tobytes()
    (top,) = store.db.execute(
        "SELECT rowid FROM vec_chunks WHERE embedding MATCH ? AND k = 1", (query,)
    ).fetchall()
    assert "pageword3" in store.chunks([top[0]])[top[0]].text
    assert store.check_integrity() == []


def test_opening_a_library_removes_copies_of_imports_that_never_committed(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    run(importer, [manual])
    kept = tmp_library.pdf_path(tmp_library.store.list_documents()[0])
    (tmp_library.documents_dir / ("e" * 64 + ".pdf")).write_bytes(b"%PDF-1.7 half")
    (tmp_library.documents_dir / "tmp1234.part").write_bytes(b"%PDF-1.7 partial")

    reopened = Library.open(tmp_library.root)

    assert list(reopened.documents_dir.iterdir()) == [kept]
    reopened.close()


def test_a_removed_manual_leaves_no_files_and_can_be_imported_again(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    (result,), _ = run(importer, [manual])
    doc = tmp_library.store.list_documents()[0]
    render = tmp_library.render_page(doc, 1, zoom=0.5)
    assert render.is_file()

    assert tmp_library.remove("AX-200_Install.pdf").id == result.document_id

    assert tmp_library.store.list_documents() == []
    assert not tmp_library.pdf_path(doc).exists()
    assert not render.exists()
    assert fts(tmp_library, "J24") == []
    (again,), _ = run(importer, [manual])
    assert again.status == "imported"


def test_scanned_pages_imported_with_ocr_off_are_flagged(
    importer: Importer, tmp_path: Path
) -> None:
    (result,), _ = run(importer, [pdfs.scanned_pdf(tmp_path / "scan.pdf", pages=2)])
    assert result.status == "imported"
    assert any("OCR is off" in w and "pages 1, 2" in w for w in result.warnings)


# ---- a manual an older version read ----------------------------------------------------


def _as_read_long_ago(library: Library, doc_id: int) -> None:
    """What an older reading left: another title, one chunk of other words, no version."""
    db = library.store.db
    db.execute("UPDATE documents SET extraction = 0, title = 'CONTENT' WHERE id = ?", (doc_id,))
    keep = db.execute("SELECT MIN(id) FROM chunks WHERE document_id = ?", (doc_id,)).fetchone()[0]
    for (cid,) in list(db.execute("SELECT id FROM chunks WHERE document_id = ?", (doc_id,))):
        if cid != keep:
            db.execute("DELETE FROM vec_chunks WHERE rowid = ?", (cid,))
            db.execute("DELETE FROM vec_chunks_bits WHERE rowid = ?", (cid,))
            db.execute("DELETE FROM chunks WHERE id = ?", (cid,))
    db.execute(
        "UPDATE chunks SET text = 'stale words', search_text = 'stale words' WHERE id = ?", (keep,)
    )
    db.execute("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')")


def _reread(importer: Importer, doc_id: int) -> tuple[ImportResult, list[ImportEvent]]:
    progress: list[ImportEvent] = []
    return importer_module.follow(importer.reread(doc_id), progress.append), progress


def test_a_manual_an_older_version_read_is_read_again_in_place(
    importer: Importer, tmp_library: Library, manual: Path, other_manual: Path
) -> None:
    run(importer, [manual, other_manual])
    first, second = tmp_library.store.list_documents()
    page_id = tmp_library.store.db.execute(
        "SELECT id FROM pages WHERE document_id = ? AND number = 2", (first.id,)
    ).fetchone()[0]
    chunks = tmp_library.store.chunk_count()
    assert tmp_library.store.read_before(importer_module.EXTRACTION) == []
    _as_read_long_ago(tmp_library, first.id)
    assert [d.id for d in tmp_library.store.read_before(importer_module.EXTRACTION)] == [first.id]
    assert fts(tmp_library, "pageword3") == []
    before = document_signatures(tmp_library.store.db, rows="pages")

    result, progress = _reread(importer, first.id)

    assert (result.status, result.document_id, result.title) == ("imported", first.id, pdfs.TITLE)
    assert progress[0].phase == "hashing"
    assert progress[-1].phase == "saving" and progress[-1].done == progress[-1].total
    again = tmp_library.store.get_document(first.id)
    assert again is not None
    assert (again.file_name, again.title, again.pages) == (first.file_name, pdfs.TITLE, 3)
    assert again.imported_at >= first.imported_at
    assert tmp_library.store.read_before(importer_module.EXTRACTION) == []
    # Its pages keep their rows (and what hangs on them); its chunks are the new reading's.
    assert (
        page_id
        == tmp_library.store.db.execute(
            "SELECT id FROM pages WHERE document_id = ? AND number = 2", (first.id,)
        ).fetchone()[0]
    )
    assert tmp_library.store.chunk_count() == chunks
    # A search's in-memory page index reads the manual again (its signature changed).
    after = document_signatures(tmp_library.store.db, rows="pages")
    assert after[first.id] != before[first.id] and after[second.id] == before[second.id]
    assert fts(tmp_library, "pageword3") == [(first.id, 3)]
    assert fts(tmp_library, "stale") == []
    # The other manual is untouched, and the library is sound.
    assert tmp_library.store.get_document(second.id) == second
    assert tmp_library.store.check_integrity() == []


def test_a_manual_whose_copy_is_gone_cannot_be_read_again_and_says_why(
    importer: Importer, tmp_library: Library, manual: Path
) -> None:
    run(importer, [manual])
    (doc,) = tmp_library.store.list_documents()
    tmp_library.pdf_path(doc).unlink()

    with pytest.raises(
        importer_module.ImportFailure, match=r"copy of AX-200_Install\.pdf is missing"
    ):
        _reread(importer, doc.id)
    assert tmp_library.store.get_document(doc.id) == doc


def test_reading_a_manual_again_with_another_embedder_re_embeds_the_library_first(
    tmp_library: Library, hashing_embedder: HashingEmbedder, manual: Path, other_manual: Path
) -> None:
    run(Importer(tmp_library, embedder=hashing_embedder, ocr=None), [manual, other_manual])
    first = tmp_library.store.list_documents()[0]
    _as_read_long_ago(tmp_library, first.id)

    result, progress = _reread(
        Importer(tmp_library, embedder=HashingEmbedder(dim=64), ocr=None), first.id
    )

    assert (result.status, result.document_id) == ("imported", first.id)
    assert any("re-embedding with hashing-64" in p.message for p in progress)
    assert (tmp_library.store.embedder_name(), tmp_library.store.vector_dim()) == ("hashing-64", 64)
    assert tmp_library.store.check_integrity() == []
