"""File > Watch Folder… and Remove Missing Manuals…: the window's side of watched folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from app.worker.library_messages import WatchState


class WatchCommands:
    """Mixed into the main window (``controller`` and ``status`` are the window's)."""

    controller: Any
    status: Any
    watched: WatchState = WatchState(())

    def watch_folder(self) -> None:
        window = self._watch_window()
        folder = QFileDialog.getExistingDirectory(window, "Watch a folder of manuals")
        if folder:
            self.controller.watch("add", folder)

    def remove_missing(self) -> None:
        gone = self.watched.missing
        if not gone:
            self.status.showMessage("No watched file is missing.", 4000)
            return
        names = "\n".join(Path(p).name for p in gone[:12])
        more = f"\n… and {len(gone) - 12} more" if len(gone) > 12 else ""
        answer = QMessageBox.question(
            self._watch_window(),
            "Remove missing manuals",
            f"These files are gone from the watched folders:\n\n{names}{more}\n\n"
            "Remove their manuals from the library?",
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.controller.watch("prune")

    def on_watch_state(self, state: WatchState) -> None:
        self.watched = state
        if state.message:
            self.status.showMessage(state.message, 8000)
        elif state.missing:
            self.status.showMessage(
                f"{len(state.missing)} watched file(s) are gone from their folders; their "
                "manuals stay until File > Remove Missing Manuals…",
                15000,
            )

    def _watch_window(self) -> QMainWindow:
        assert isinstance(self, QMainWindow)
        return self
