"""Opening another library from the window: File > Open Library… and the benchmark bar's
Change… button stop the worker and start one on the chosen folder, and the sidebar, the
status bar and the benchmark panel (its saved runs too) follow the new worker's replies.
A folder that is neither a library nor empty is refused and nothing changes."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.gui.conftest import INSTALLATION
from tests.gui.test_benchmark_runs import DESIGN_ITEMS, save_run, write

ANSWERS = [("13.8 V DC", [6], False, 1, 1.0), ("J2", [9], False, 1, 2.0), ("", [], True, 1, 0.5)]


@pytest.fixture(autouse=True)
def settings_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Opening a library saves it in the settings file: a temporary one, never the user's."""
    path = tmp_path / "settings.json"
    monkeypatch.setenv("LANTERN_SETTINGS", str(path))
    return path


def choose_folder(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    monkeypatch.setattr(
        "app.ui.commands.QFileDialog.getExistingDirectory", lambda *a, **k: str(folder)
    )


def test_switching_to_a_new_library_and_back(
    make_window, sample_library, tmp_path, qtbot, monkeypatch, settings_file
):
    dataset = write(tmp_path / "d.json", DESIGN_ITEMS)
    run_id = save_run(sample_library, dataset, "2025-01-01T10:00:00", ANSWERS)
    window = make_window(sample_library)
    panel, sidebar, controller = window.benchmark, window.library, window.controller
    assert sidebar.documents[0].file_name == INSTALLATION
    assert panel.runs.ids() == [run_id] and panel.run is not None
    assert panel.bar.library_label.text() == f"{sample_library} · 2 manuals"

    window.ask("slow: tell me everything about the AUX+ terminal")
    card = window.conversation.last_card()
    assert card is not None
    qtbot.waitUntil(lambda: len(card.text) > 0, timeout=20_000)
    old_worker = controller.process
    new = tmp_path / "new library"
    choose_folder(monkeypatch, new)
    with qtbot.waitSignal(controller.library_changed, timeout=30_000):
        started = time.perf_counter()
        window.actions_by_name["open_library"].trigger()
        switch_s = time.perf_counter() - started
    assert switch_s < 5.0, f"stopping the answering worker took {switch_s:.1f} s"
    assert not old_worker.is_alive() and controller.process is not old_worker
    assert not window.conversation.cards and not window.conversation.busy
    assert window.evidence.current is None
    assert sidebar.documents == [] and sidebar.heading.text() == "Library"
    assert window.status.library.text().startswith("0 manuals · 0 pages")
    assert panel.bar.library_label.text() == f"{new} · 0 manuals"
    assert panel.runs.ids() == [] and panel.run is None
    assert (new / "library.db").is_file(), "an empty new folder becomes a library"
    assert window.settings.library_dir == new == controller.config.settings.library_dir
    assert controller.config.settings.embedder == "hashing", "the rest of the config is kept"
    assert json.loads(settings_file.read_text())["library_dir"] == str(new)
    assert "Opened the library" in window.status.currentMessage()

    window.show_view("benchmark")
    choose_folder(monkeypatch, sample_library)
    with qtbot.waitSignal(controller.library_changed, timeout=30_000):
        panel.bar.library_button.click()
    assert sidebar.documents[0].file_name == INSTALLATION
    assert window.status.library.text().startswith("2 manuals")
    assert panel.bar.library_label.text() == f"{sample_library} · 2 manuals"
    assert panel.runs.ids() == [run_id] and (panel.run or {}).get("id") == run_id
    assert json.loads(settings_file.read_text())["library_dir"] == str(sample_library)
    window.ask("What voltage does the AUX+ terminal supply?")
    again = window.conversation.last_card()
    assert again is not None and len(window.conversation.cards) == 1
    qtbot.waitUntil(lambda: not again.running, timeout=20_000)
    assert "13.8 V DC" in again.text, "the new worker answers"


def test_a_folder_that_is_not_a_library_is_refused(
    make_window, sample_library, tmp_path, qtbot, settings_file
):
    window = make_window(sample_library)
    worker = window.controller.process
    other = tmp_path / "photos"
    other.mkdir()
    (other / "holiday.jpg").write_bytes(b"not a library")
    assert not window.open_library(other)
    assert "not a Lantern library" in window.status.currentMessage()
    assert str(other) in window.status.currentMessage()
    assert not window.open_library(other / "holiday.jpg")
    assert "is a file" in window.status.currentMessage()
    assert window.controller.process is worker and worker.is_alive()
    assert window.settings.library_dir == sample_library and not settings_file.exists()
    assert len(window.library.documents) == 2
    assert not (other / "library.db").exists()


def test_change_is_disabled_while_a_benchmark_runs(make_window, tmp_path):
    window = make_window(tmp_path / "library")
    panel = window.benchmark
    assert panel.bar.library_button.isEnabled()
    panel.job = 7  # a run in progress, as start_run leaves it
    panel._update_buttons()
    assert not panel.bar.library_button.isEnabled()
    assert not window.open_library(tmp_path / "elsewhere")
    assert "Stop the benchmark run" in window.status.currentMessage()
    assert not (tmp_path / "elsewhere").exists()
    panel.job = 0
