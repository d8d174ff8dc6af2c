"""The status bar: the mode and the models in use, the library's size, background work."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QProgressBar, QStatusBar, QWidget

from app.ui.widgets import named
from app.worker.messages import LibraryState, WorkerReady


def format_bytes(size: int) -> str:
    for unit, scale in (("GB", 1024**3), ("MB", 1024**2), ("KB", 1024)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


class StatusBar(QStatusBar):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeGripEnabled(False)
        self.mode = named(QLabel("starting…"), "modePill")
        self.models = QLabel("")
        self.library = QLabel("")
        self.work = QLabel("")
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setFixedSize(90, 6)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.addWidget(self.mode)
        self.addWidget(self.models)
        self.addPermanentWidget(self.work)
        self.addPermanentWidget(self.busy)
        self.addPermanentWidget(self.library)

    def set_ready(self, ready: WorkerReady) -> None:
        self.mode.setText(ready.mode)
        self.mode.setToolTip(ready.reason or ready.mode)
        names = ", ".join(ready.models)
        self.models.setText(f"Models: {names}" if names else "")
        self.models.setToolTip(f"Library: {ready.library_dir}")

    def set_degraded(self, message: str) -> None:
        """A model could not load and Lantern runs without it (e.g. full-text search only):
        said in the models label, which stays until the worker restarts."""
        self.models.setText(f"{self.models.text()} · full-text search only".lstrip(" ·"))
        self.models.setToolTip(message)

    def set_library(self, state: LibraryState) -> None:
        docs = len(state.documents)
        pages = sum(d.pages for d in state.documents)
        self.library.setText(
            f"{docs} manual{'s' if docs != 1 else ''} · {pages} pages · "
            f"{format_bytes(state.size_bytes)}"
        )

    def set_work(self, texts: list[str]) -> None:
        """What runs in the background ("Answering…", "Importing 2 files…"); [] = idle."""
        self.work.setText("  ·  ".join(texts))
        self.busy.setVisible(bool(texts))
