"""The window's menu commands (a mixin of MainWindow): file pickers, opening another
library, remove and re-index, copy, panels, the settings dialog, help. Kept apart so the
window module stays about layout and wiring."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from app.config import save_settings
from app.library.models import DocumentInfo
from app.ui.settings_dialog import ModelsDialog

if TYPE_CHECKING:
    from PySide6.QtCore import QSettings

    from app.config import Settings
    from app.ui.benchmark.panel import BenchmarkPanel
    from app.ui.controller import Controller
    from app.ui.conversation import ConversationPanel
    from app.ui.evidence import EvidencePane
    from app.ui.sidebar import LibraryPanel
    from app.ui.statusbar import StatusBar

ABOUT = (
    "<h3>Lantern</h3><p>Ask your equipment's manuals, offline. Answers cite their pages and "
    "show the passages they come from.</p><p>Everything runs on this computer; the only "
    "network use is downloading a model when you ask for it.</p>"
)
# app.library.store.DB_NAME, not imported: it would load SQLite and numpy into the window.
LIBRARY_DB = "library.db"


def library_problem(folder: Path) -> str:
    """Why ``folder`` cannot be opened as a library, or "" when it can: a library folder
    holds library.db, and an empty or missing folder becomes a new library (hidden files
    such as .DS_Store do not count)."""
    if (folder / LIBRARY_DB).is_file():
        return ""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is a file, not a library folder"
    try:
        used = folder.is_dir() and any(not p.name.startswith(".") for p in folder.iterdir())
    except OSError as exc:
        return f"Cannot read {folder}: {exc.strerror or exc}"
    if used:
        return f"{folder} is not a Lantern library (it has no {LIBRARY_DB}) and is not empty"
    return ""


def shortcut_lines(actions: dict[str, QAction]) -> list[tuple[str, str]]:
    """(command, shortcut) for the Help > Keyboard Shortcuts list."""
    lines = [("Ask the question", "Ctrl+Enter"), ("Stop the answer", "Esc")]
    for action in actions.values():
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            lines.append((action.text().replace("&", "").rstrip("…"), keys))
    return lines


class WindowCommands:
    controller: Controller
    settings: Settings
    library: LibraryPanel
    conversation: ConversationPanel
    evidence: EvidencePane
    benchmark: BenchmarkPanel
    status: StatusBar
    state: QSettings
    actions_by_name: dict[str, QAction]

    def _window(self) -> QMainWindow:
        assert isinstance(self, QMainWindow)
        return self

    def import_paths(self, paths: list[str]) -> None:
        raise NotImplementedError

    def choose_files(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self._window(), "Import manuals", "", "PDF manuals (*.pdf *.PDF)"
        )
        if files:
            self.import_paths(files)

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self._window(), "Import a folder of manuals")
        if folder:
            self.import_paths([folder])

    def choose_library(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self._window(),
            "Open a library (or an empty folder for a new one)",
            str(self.settings.library_dir.parent),
        )
        if folder:
            self.open_library(folder)

    def open_library(self, path: str | Path) -> bool:
        """Switch the window and its worker to the library in ``path`` and remember it in
        the settings file. The conversation and the evidence belong to the old library and
        are cleared. False, said in the status bar, when the folder is refused."""
        folder = Path(path).expanduser().absolute()
        problem = library_problem(folder)
        if not problem and (self.benchmark.running or self.benchmark.optimise.running):
            problem = "Stop the benchmark run before opening another library"
        if problem:
            self.status.showMessage(problem, 10_000)
            return False
        if folder == self.settings.library_dir.expanduser().absolute():
            self.status.showMessage(f"{folder} is the library already open", 5_000)
            return True
        if self.conversation.busy:
            self.controller.stop_answer()
            self.conversation.set_busy(False)  # its Done would come from the old worker
        self.new_conversation()
        # Also redraws the status bar's work ("Answering…" has just ended).
        self.library.queue.abandon("another library was opened; import the file again")
        self.controller.switch_library(folder)
        self.settings = self.settings.model_copy(update={"library_dir": folder})
        try:
            saved = f"; Lantern opens it next time ({save_settings(self.settings)})"
        except OSError as exc:
            saved = f"; it could not be remembered: {exc.strerror or exc}"
        self.status.showMessage(f"Opened the library {folder}{saved}", 8_000)
        return True

    def reindex_selected(self) -> None:
        doc = self.library.selected()
        if doc is not None:
            self.controller.reindex(doc.id)

    def remove_selected(self) -> None:
        doc = self.library.selected()
        if doc is not None:
            self.remove_document(doc)

    def remove_document(self, doc: DocumentInfo) -> None:
        answer = QMessageBox.question(
            self._window(),
            "Remove manual",
            f"Remove “{doc.title}” from the library?\nThe original file is not touched.",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.controller.remove(doc.id)

    def copy_answer(self) -> None:
        card = self.conversation.last_card()
        if card is not None and card.text:
            card.copy()

    def new_conversation(self) -> None:
        self.conversation.clear()
        self.evidence.reset()

    def focus_filter(self) -> None:
        self.library.filter.setFocus()
        self.library.filter.selectAll()

    def focus_question(self) -> None:
        self.conversation.question.setFocus()

    def toggle_reasoning(self) -> None:
        card = self.conversation.last_card()
        if card is not None:
            card.timeline.set_expanded(not card.timeline.is_expanded())

    def toggle_library(self) -> None:
        visible = not self.library.isVisible()
        self.library.setVisible(visible)
        self.actions_by_name["library"].setChecked(visible)

    def toggle_evidence(self) -> None:
        visible = not self.evidence.isVisible()
        self.evidence.setVisible(visible)
        self.actions_by_name["evidence"].setChecked(visible)

    def toggle_maximized(self) -> None:
        window = self._window()
        window.showNormal() if window.isMaximized() else window.showMaximized()

    def open_settings(self) -> None:
        dialog = ModelsDialog(self.settings, self._window())
        self.controller.models_listed.connect(dialog.set_models)
        self.controller.download_update.connect(dialog.on_download)
        dialog.download_requested.connect(self.controller.download)
        dialog.saved.connect(self._settings_saved)
        self.controller.list_models()
        dialog.exec()
        self.controller.models_listed.disconnect(dialog.set_models)
        self.controller.download_update.disconnect(dialog.on_download)

    def _settings_saved(self, settings: Settings) -> None:
        path = save_settings(settings)
        self.settings = settings
        self.status.showMessage(f"Settings saved to {path}; they apply when Lantern restarts.")

    def show_shortcuts(self) -> None:
        rows = "".join(
            f"<tr><td>{name}</td><td style='padding-left:16px'><b>{keys}</b></td></tr>"
            for name, keys in shortcut_lines(self.actions_by_name)
        )
        QMessageBox.information(self._window(), "Keyboard shortcuts", f"<table>{rows}</table>")

    def show_about(self) -> None:
        QMessageBox.about(self._window(), "About Lantern", ABOUT)
