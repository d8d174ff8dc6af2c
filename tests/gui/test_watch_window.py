"""Watched folders from the window: a folder added is imported and kept up with while the
window is open, and the watch is caught up when Lantern starts again."""

from __future__ import annotations

import shutil

from tests.helpers.pdfs import text_manual_pdf
from tests.unit.library.test_revisions import guide_pdf


def test_a_watched_folder_is_imported_kept_up_with_and_caught_up(make_window, tmp_path, qtbot):
    shop = tmp_path / "shop"
    guide_pdf(shop / "Guide.pdf", 30, "C")
    window = make_window(tmp_path / "library")
    assert {"watch_folder", "remove_missing"} <= set(window.actions_by_name)
    window.controller.watch("add", str(shop))
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=30_000)
    qtbot.waitUntil(lambda: window.watched.folders == (str(shop.resolve()),), timeout=10_000)

    text_manual_pdf(tmp_path / "Panel.pdf")
    shutil.copy(tmp_path / "Panel.pdf", shop / "Panel.pdf")  # watchdog sees it
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=30_000)
    window.close()

    (shop / "Guide.pdf").unlink()  # while Lantern is closed
    again = make_window(tmp_path / "library")
    qtbot.waitUntil(lambda: bool(again.watched.missing), timeout=30_000)
    assert again.watched.missing == (str(shop.resolve() / "Guide.pdf"),)
    assert len(again.library.documents) == 2, "flagged, not deleted"
    assert "Remove Missing Manuals" in again.status.currentMessage()
