"""What the app bundle adds to the window: PDFs opened from the Finder or the Dock
(``QFileOpenEvent``), the first-run "Try it with the sample manual" offer, and the icon."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt, QUrl
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication

from app.ui.file_open import FileOpenHandler
from app.ui.first_run import DISMISSED_KEY, OFFER_TITLE
from app.ui.main import build_window
from tests.gui.conftest import FAKE_ANSWERER, INSTALLATION, gui_settings


@pytest.fixture
def offering_window(qtbot, tmp_path: Path, sample_manuals_dir: Path):  # type: ignore[no-untyped-def]
    """A window on an empty library with the first-run offer on (as in the bundle)."""
    windows = []

    def make(library_dir: Path, state_file: Path):  # type: ignore[no-untyped-def]
        state = QSettings(str(state_file), QSettings.Format.IniFormat)
        window = build_window(
            gui_settings(library_dir), answerer=FAKE_ANSWERER, state=state, offer_sample=True
        )
        qtbot.addWidget(window)
        with qtbot.waitSignal(window.controller.library_changed, timeout=30_000):
            window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


def test_a_pdf_opened_from_the_finder_is_imported(make_window, tmp_path, sample_manuals_dir, qtbot):
    window = make_window(tmp_path / "library")
    event = QFileOpenEvent(str(sample_manuals_dir / INSTALLATION))
    assert QApplication.sendEvent(QApplication.instance(), event)
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=60_000)
    assert window.library.documents[0].file_name == INSTALLATION


def test_a_file_open_url_that_is_not_a_pdf_is_left_alone(make_window, tmp_path, qtbot):
    window = make_window(tmp_path / "library")
    notes = tmp_path / "notes.txt"
    notes.write_text("not a manual", encoding="utf-8")
    event = QFileOpenEvent(QUrl.fromLocalFile(str(notes)))
    assert not QApplication.sendEvent(QApplication.instance(), event)
    qtbot.wait(300)
    assert window.library.queue.rows == {}


def test_pdfs_opened_before_the_window_wait_for_it(tmp_path, sample_manuals_dir):
    imported: list[list[str]] = []
    handler = FileOpenHandler()
    pdf = str(sample_manuals_dir / INSTALLATION)
    assert handler.eventFilter(handler, QFileOpenEvent(pdf))
    assert handler.pending == [pdf]
    handler.attach(imported.append)
    assert imported == [[pdf]]
    assert handler.pending == []


def test_first_run_offers_the_sample_and_imports_it(
    offering_window, tmp_path, sample_manuals_dir, qtbot
):
    window = offering_window(tmp_path / "library", tmp_path / "state.ini")
    offer = window.sample_offer
    assert offer is not None
    qtbot.waitUntil(offer.isVisible, timeout=5_000)
    assert offer.try_button.text() == OFFER_TITLE
    assert offer.try_button.width() >= offer.try_button.sizeHint().width()  # not clipped
    assert window.library.documents == []  # offered, not imported silently
    qtbot.mouseClick(offer.try_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=90_000)
    qtbot.waitUntil(lambda: not offer.isVisible(), timeout=5_000)
    names = {d.file_name for d in window.library.documents}
    assert names == {p.name for p in sample_manuals_dir.glob("*.pdf")}


def test_no_thanks_puts_the_offer_away_for_good(offering_window, tmp_path, qtbot):
    state_file = tmp_path / "state.ini"
    window = offering_window(tmp_path / "library", state_file)
    offer = window.sample_offer
    qtbot.waitUntil(offer.isVisible, timeout=5_000)
    qtbot.mouseClick(offer.dismiss_button, Qt.MouseButton.LeftButton)
    assert not offer.isVisible()
    assert QSettings(str(state_file), QSettings.Format.IniFormat).value(DISMISSED_KEY) == "true"
    window.close()
    again = offering_window(tmp_path / "library", state_file)
    qtbot.wait(300)
    assert not again.sample_offer.isVisible()
    assert again.library.documents == []


def test_a_checkout_window_makes_no_offer(make_window, tmp_path):
    window = make_window(tmp_path / "library")
    assert window.sample_offer is None  # scripts/run.sh imports the samples instead


def test_the_window_has_lantern_s_icon(make_window, tmp_path):
    make_window(tmp_path / "library")
    icon = QApplication.instance().windowIcon()
    assert not icon.isNull()
    assert {16, 32, 256, 1024} <= {s.width() for s in icon.availableSizes()}
