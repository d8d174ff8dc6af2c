"""File > Export Pack / Import Pack: the window's side of portable manual packs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMainWindow, QMessageBox

from app.worker.library_messages import PackDone, PackRequest

SUFFIX = ".lanternpack"
FILTER = "Lantern packs (*.lanternpack)"


class PackCommands:
    """Mixed into the main window: choose a pack file, hand the work to the worker, say
    how it went. ``controller``, ``library`` (the sidebar) and ``status`` are the window's."""

    controller: Any
    library: Any
    status: Any

    def export_pack(self) -> None:
        """The whole library as one pack."""
        self._export([], "Lantern library")

    def export_selected_pack(self) -> None:
        doc = self.library.selected()
        if doc is None:
            self.status.showMessage("Select a manual in the library first.", 4000)
            return
        self._export([doc.id], Path(doc.file_name).stem)

    def _export(self, documents: list[int], name: str) -> None:
        window = self._pack_window()
        path, _ = QFileDialog.getSaveFileName(window, "Export pack", f"{name}{SUFFIX}", FILTER)
        if path:
            self.controller.pack(PackRequest("export", path, tuple(documents)))
            self.status.showMessage(f"Exporting {Path(path).name}…", 3000)

    def import_pack(self) -> None:
        window = self._pack_window()
        paths, _ = QFileDialog.getOpenFileNames(window, "Import packs", "", FILTER)
        self.import_packs(paths)

    def import_packs(self, paths: list[str]) -> None:
        for path in paths:
            self.controller.pack(PackRequest("import", path))
            self.library.queue.queued((path,))

    def on_pack_done(self, done: PackDone) -> None:
        if done.error:
            what = "export" if done.action == "export" else "import"
            QMessageBox.warning(
                self._pack_window(),
                f"Cannot {what} the pack",
                f"{Path(done.path).name}: {done.error}",
            )
        else:
            self.status.showMessage(done.text, 8000)

    def _pack_window(self) -> QMainWindow:
        assert isinstance(self, QMainWindow)
        return self
