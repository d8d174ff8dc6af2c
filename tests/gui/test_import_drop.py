"""Dropping PDFs on the window imports them, with progress and failure reasons."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from tests.gui.conftest import INSTALLATION, USER


def drop(window, paths: list[Path]) -> None:  # type: ignore[no-untyped-def]
    """A drag entering the window and a drop, as the window system would send them."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    where = QPointF(window.width() / 2, window.height() / 2)
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(where, Qt.DropAction.CopyAction, mime, buttons, keys)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    assert window.drop_overlay.isVisible()
    QApplication.sendEvent(window, QDropEvent(where, Qt.DropAction.CopyAction, mime, buttons, keys))
    assert not window.drop_overlay.isVisible()


def test_empty_library_shows_the_drop_zone(make_window, tmp_path):
    window = make_window(tmp_path / "library")
    assert window.library.stack.currentWidget() is window.library.drop_zone
    assert "Drop PDF manuals here" in window.library.drop_zone.text()


def test_dropping_pdfs_imports_them_with_progress(make_window, tmp_path, sample_manuals_dir, qtbot):
    window = make_window(tmp_path / "library")
    seen_progress: list[str] = []
    window.controller.import_event.connect(
        lambda e: seen_progress.append(e.phase) if hasattr(e, "phase") else None
    )
    drop(window, [sample_manuals_dir / INSTALLATION, sample_manuals_dir / USER])
    queue = window.library.queue
    qtbot.waitUntil(lambda: len(queue.rows) == 2, timeout=10_000)
    assert queue.isVisible()
    row = queue.rows[str(sample_manuals_dir / INSTALLATION)]
    qtbot.waitUntil(lambda: row.bar.value() > 0, timeout=20_000)
    assert any(word in row.detail.text() for word in ("Reading", "Embedding", "Page", "Saving"))
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=60_000)
    qtbot.waitUntil(lambda: not queue.active(), timeout=10_000)
    assert {"reading text", "embedding", "page images"} <= set(seen_progress)
    assert "Imported · 19 pages" in row.detail.text()
    assert window.library.stack.currentWidget() is window.library.list
    assert "2 manuals" in window.status.library.text()


def test_dropping_a_folder_imports_its_pdfs(make_window, tmp_path, sample_manuals_dir, qtbot):
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / USER).write_bytes((sample_manuals_dir / USER).read_bytes())
    window = make_window(tmp_path / "library")
    drop(window, [folder])
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)


def test_a_broken_file_shows_its_reason(make_window, tmp_path, qtbot):
    bad = tmp_path / "broken.pdf"
    bad.write_text("this is not a PDF at all")
    window = make_window(tmp_path / "library")
    drop(window, [bad])
    row = window.library.queue.row(str(bad))
    qtbot.waitUntil(lambda: row.state == "failed", timeout=20_000)
    assert row.detail.text() == "Failed: not a PDF file"
    assert row.property("state") == "failed"
    assert window.library.documents == []


def test_imports_cut_short_by_a_worker_crash_say_so(
    make_window, tmp_path, sample_manuals_dir, qtbot
):
    window = make_window(tmp_path / "library")
    drop(window, [sample_manuals_dir / INSTALLATION])
    row = window.library.queue.row(str(sample_manuals_dir / INSTALLATION))
    qtbot.waitUntil(lambda: row.state == "running", timeout=20_000)
    with qtbot.waitSignal(window.controller.restarted, timeout=20_000):
        os.kill(window.controller.process.pid, signal.SIGKILL)
    assert row.state == "failed"
    assert "worker stopped" in row.detail.text()


def test_manuals_an_older_version_read_are_read_again_at_start(make_window, sample_library, qtbot):
    from app.library.library import Library

    old = Library.open(sample_library)
    old.store.db.execute("UPDATE documents SET extraction = 0, title = 'CONTENT'")
    ids = [d.id for d in old.store.list_documents()]
    old.close()

    window = make_window(sample_library)

    queue = window.library.queue
    qtbot.waitUntil(lambda: len(queue.rows) == 2 and not queue.active(), timeout=120_000)
    assert all(r.detail.text().startswith("Read again · 19 pages") for r in queue.rows.values())
    # Each manual's new title reaches the list when its reading is stored, one after the
    # other: wait for both.
    qtbot.waitUntil(
        lambda: "CONTENT" not in {d.title for d in window.library.documents}, timeout=10_000
    )
    assert [d.id for d in window.library.documents] == ids
