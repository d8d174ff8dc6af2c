"""The window around the panels: menus and shortcuts, remembered geometry, the library's
actions and filter, the status bar, the models and settings dialog."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLineEdit, QMessageBox, QPushButton

from app.config import Settings
from app.ui.main import build_window
from app.ui.settings_dialog import ModelsDialog
from tests.gui.conftest import INSTALLATION, gui_settings

YES = QMessageBox.StandardButton.Yes


def menu_titles(window) -> list[str]:  # type: ignore[no-untyped-def]
    return [a.text().replace("&", "") for a in window.menuBar().actions()]


def test_menus_with_standard_shortcuts(make_window, tmp_path):
    window = make_window(tmp_path / "library")
    assert menu_titles(window) == ["File", "Edit", "View", "Window", "Help"]
    actions = window.actions_by_name
    assert actions["import"].shortcut() == QKeySequence(QKeySequence.StandardKey.Open)
    assert actions["quit"].shortcut() == QKeySequence(QKeySequence.StandardKey.Quit)
    assert actions["settings"].menuRole() == actions["settings"].MenuRole.PreferencesRole
    actions["benchmark"].trigger()
    assert window.views.currentWidget() is window.benchmark_scroll
    actions["main_view"].trigger()
    assert window.views.currentWidget() is window.splitter


def test_geometry_and_splitter_are_restored(qtbot, tmp_path):
    ini = str(tmp_path / "window.ini")
    settings = gui_settings(tmp_path / "library")
    first = build_window(settings, state=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(first)
    first.show()
    first.resize(760, 560)  # the offscreen screen is about 800 x 800
    first.splitter.setSizes([220, 210, 320])
    sizes = first.splitter.sizes()
    first.close()
    second = build_window(settings, state=QSettings(ini, QSettings.Format.IniFormat))
    qtbot.addWidget(second)
    second.show()
    assert (second.width(), second.height()) == (760, 560)
    assert second.splitter.sizes() == sizes
    second.close()


def test_filter_remove_and_reindex(make_window, sample_library, qtbot, monkeypatch):
    window = make_window(sample_library)
    panel = window.library
    assert panel.documents[0].file_name == INSTALLATION
    panel.filter.setText("user")
    visible = [panel.list.item(i) for i in range(panel.list.count())]
    assert [i.isHidden() for i in visible] == [True, False]
    panel.filter.clear()
    panel.list.setCurrentRow(0)
    monkeypatch.setattr(
        "app.ui.commands.QMessageBox.question",
        lambda *a, **k: __import__("PySide6.QtWidgets").QtWidgets.QMessageBox.StandardButton.Yes,
    )
    # Re-indexing embeds the manual again: with the bundle building beside the suite on a
    # 2-core machine it took over 30 s once.
    with qtbot.waitSignal(window.controller.library_changed, timeout=120_000):
        window.actions_by_name["reindex"].trigger()
    assert any(r.state == "imported" for r in panel.queue.rows.values())
    assert len(panel.documents) == 2
    panel.list.setCurrentRow(0)
    window.remove_selected()
    qtbot.waitUntil(lambda: len(panel.documents) == 1, timeout=20_000)
    assert "1 manual · 19 pages" in window.status.library.text()


def test_status_bar_shows_mode_models_and_library(make_window, sample_library, qtbot):
    window = make_window(sample_library)
    qtbot.waitUntil(lambda: window.status.mode.text() == "no-LLM", timeout=10_000)
    assert window.status.models.text() == "Models: hashing"
    assert window.status.library.text().startswith("2 manuals · 38 pages · ")


def test_settings_form_is_generated_from_the_declaration(qtbot, tmp_path):
    settings = gui_settings(tmp_path / "library")
    dialog = ModelsDialog(settings)
    qtbot.addWidget(dialog)
    assert list(dialog.form.editors) == [name for name, _d, _h in Settings.describe()]
    assert dialog.form.editors["max_steps"].maximum() == 20
    assert dialog.form.values() == settings
    folder = dialog.form.editors["library_dir"]
    assert isinstance(folder, QLineEdit) and folder.text() == str(settings.library_dir)
    saved: list[Settings] = []
    dialog.saved.connect(saved.append)
    dialog.form.editors["max_steps"].setValue(9)
    dialog._save()
    assert saved and saved[0].max_steps == 9 and saved[0].library_dir == settings.library_dir


def test_models_dialog_lists_models_and_reports_a_failed_download(make_window, tmp_path, qtbot):
    window = make_window(tmp_path / "library")
    dialog = ModelsDialog(window.settings, window)
    qtbot.addWidget(dialog)
    window.controller.models_listed.connect(dialog.set_models)
    window.controller.download_update.connect(dialog.on_download)
    dialog.download_requested.connect(window.controller.download)
    with qtbot.waitSignal(window.controller.models_listed, timeout=20_000):
        window.controller.list_models()
    names = [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]
    assert "mlx-community/Qwen2.5-3B-Instruct-4bit" in names
    row = names.index("mlx-community/Qwen2.5-3B-Instruct-4bit")
    assert dialog.table.item(row, 1).text().startswith("llm: ")
    button = dialog.table.cellWidget(row, dialog.table.columnCount() - 1)
    assert isinstance(button, QPushButton) and button.text() == "Download"
    with qtbot.waitSignal(window.controller.download_update, timeout=20_000) as update:
        button.click()
    assert update.args[0].finished and "offline" in update.args[0].error  # HF_HUB_OFFLINE=1
    assert "offline" in dialog.bars["mlx-community/Qwen2.5-3B-Instruct-4bit"].toolTip()


def test_the_library_folder_is_not_touched_by_a_fresh_window(make_window, tmp_path):
    make_window(tmp_path / "library")
    assert Path(tmp_path / "library" / "library.db").is_file()
