"""PDFs opened with Lantern from the Finder or dropped on its Dock icon.

macOS hands these to the running application as ``QFileOpenEvent``s (also at launch, when a
PDF was double-clicked to start Lantern); they are imported like a drop on the window. Paths
that arrive before the window can take them wait in a queue.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QFileOpenEvent


def openable(path: str) -> bool:
    """A local PDF file or a folder (of manuals) that exists."""
    candidate = Path(path)
    return candidate.is_dir() or (candidate.suffix.lower() == ".pdf" and candidate.is_file())


class FileOpenHandler(QObject):
    """Installed on the application: turns file-open events into imports."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pending: list[str] = []
        self._import: Callable[[list[str]], None] | None = None

    def attach(self, import_paths: Callable[[list[str]], None]) -> None:
        """Imports go to ``import_paths`` from now on, starting with any that waited."""
        self._import = import_paths
        waiting, self.pending = self.pending, []
        if waiting:
            import_paths(waiting)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.FileOpen or not isinstance(event, QFileOpenEvent):
            return False
        path = event.file() or event.url().toLocalFile()
        if not path or not openable(path):
            return False
        if self._import is None:
            self.pending.append(path)
        else:
            self._import([path])
        return True
