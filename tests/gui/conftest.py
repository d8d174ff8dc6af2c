"""Fixtures for the window's tests: libraries of the sample manuals and a window factory.

The worker process imports with the hashing embedder and no OCR, so tests stay fast; the
scripted answerer (``tests.gui.fakes``) stands in for the agent unless a test asks for the
real retrieval answerer.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from app.ui.main import build_window
from app.ui.window import MainWindow

FAKE_ANSWERER = "tests.gui.fakes:scripted_answerer"
INSTALLATION = "Lumen_AX200_Installation_Manual.pdf"
USER = "Lumen_AX200_User_Manual.pdf"


def gui_settings(library_dir: Path) -> Settings:
    return Settings(
        library_dir=library_dir,
        models_dir=library_dir.parent / "models",
        embedder="hashing",
        ocr_engine="none",
    )


def build_library(folder: Path, manuals: list[Path]) -> Path:
    library = Library.open(folder)
    importer = Importer(library, gui_settings(folder), embedder=HashingEmbedder(), ocr=None)
    results = import_blocking(importer, manuals)
    library.close()
    assert all(r.status == "imported" for r in results), results
    return folder


@pytest.fixture(scope="session")
def sample_library_template(
    sample_manuals_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Both sample manuals imported once per session; tests get copies."""
    manuals = sorted(sample_manuals_dir.glob("*.pdf"))
    return build_library(tmp_path_factory.mktemp("gui-template") / "library", manuals)


@pytest.fixture
def sample_library(sample_library_template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "library"
    shutil.copytree(sample_library_template, target)
    return target


@pytest.fixture
def make_window(qtbot, tmp_path: Path) -> Iterator[Callable[..., MainWindow]]:  # type: ignore[no-untyped-def]
    """Build, show and wait for a window on a library folder; closed after the test."""
    windows: list[MainWindow] = []

    def make(library_dir: Path, answerer: str = FAKE_ANSWERER) -> MainWindow:
        state = QSettings(str(tmp_path / f"window{len(windows)}.ini"), QSettings.Format.IniFormat)
        window = build_window(gui_settings(library_dir), answerer=answerer, state=state)
        qtbot.addWidget(window)
        with qtbot.waitSignal(window.controller.library_changed, timeout=30_000):
            window.show()
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
