"""The import queue under the library: one row per file with its phase, pages done, ETA
and a progress bar; a failed file keeps its row with the reason in red."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.library.import_events import READ_AGAIN, ImportProgress, ImportResult
from app.ui.widgets import named

# Share of the bar each phase fills, in order; a phase's own progress moves within its band.
PHASES = {
    "hashing": (0, 2),
    "reading text": (2, 40),
    "OCR": (40, 60),
    "embedding": (60, 85),
    "page images": (85, 97),
    "saving": (97, 100),
}
UNITS = {"embedding": "passages", "OCR": "scanned pages"}


def describe_progress(event: ImportProgress) -> str:
    """ "Reading text · 12 of 19 pages · about 4 s left"."""
    parts = [event.phase[:1].upper() + event.phase[1:]]
    if event.total > 1:
        parts.append(f"{event.done} of {event.total} {UNITS.get(event.phase, 'pages')}")
    if event.eta_s is not None and event.eta_s >= 1:
        parts.append(f"about {event.eta_s:.0f} s left")
    if event.message:
        parts.append(event.message)
    return " · ".join(parts)


def bar_value(event: ImportProgress) -> int:
    low, high = PHASES.get(event.phase, (0, 100))
    fraction = event.done / event.total if event.total else 0.0
    return int(low + (high - low) * fraction)


class ImportRow(QFrame):
    """One file of the queue."""

    def __init__(self, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importRow")
        self.path = path
        self.state = "queued"
        self.name = named(QLabel(Path(path).name), "importName")
        self.name.setToolTip(path)
        self.detail = named(QLabel("Waiting…"), "importDetail")
        self.detail.setWordWrap(True)
        self.bar = QProgressBar(self)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.bar.setRange(0, 100)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 8)
        layout.setSpacing(3)
        layout.addWidget(self.name)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)

    def progress(self, event: ImportProgress) -> None:
        self.state = "running"
        self.bar.setValue(bar_value(event))
        self.detail.setText(describe_progress(event))

    def finish(self, result: ImportResult) -> None:
        self.state = result.status
        self.setProperty("state", result.status)
        self.style().unpolish(self)
        self.style().polish(self)
        self.bar.setValue(100)
        self.bar.setVisible(result.status != "failed")
        if result.status == "failed":
            self.detail.setText(f"Failed: {result.reason}")
        elif result.status == "skipped":
            name = result.reason.removeprefix("already in the library as ")
            self.detail.setText(f"Already in the library ({name})")
        else:
            ocr = f", {result.ocr_pages} OCR'd" if result.ocr_pages else ""
            done = "Read again" if result.reason == READ_AGAIN else "Imported"
            self.detail.setText(f"{done} · {result.pages} pages{ocr} in {result.seconds:.1f} s")


class ImportQueue(QWidget):
    """Rows for the files being imported; hidden when there are none."""

    cancel_requested = Signal()
    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: dict[str, ImportRow] = {}
        title = named(QLabel("Importing"), "sectionTitle")
        self.clear_button = named(QPushButton("Clear"), "linkButton")
        self.clear_button.setToolTip("Remove finished rows")
        self.clear_button.clicked.connect(self.clear_finished)
        self.cancel_button = named(QPushButton("Stop"), "linkButton")
        self.cancel_button.setToolTip("Stop the running import and the queued ones")
        self.cancel_button.clicked.connect(self.cancel_requested)
        header = QHBoxLayout()
        header.addWidget(title, 1)
        header.addWidget(self.cancel_button)
        header.addWidget(self.clear_button)
        self.list = QVBoxLayout()
        self.list.setSpacing(4)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.addLayout(header)
        layout.addLayout(self.list)
        self.hide()

    def row(self, path: str) -> ImportRow:
        if path not in self.rows:
            self.rows[path] = row = ImportRow(path, self)
            self.list.addWidget(row, 0, Qt.AlignmentFlag.AlignTop)
            self.show()
        return self.rows[path]

    def queued(self, paths: tuple[str, ...]) -> None:
        for path in paths:
            row = self.row(path)
            if row.state not in ("queued", "running"):
                row.state = "queued"
                row.detail.setText("Waiting…")
        self._changed()

    def add_event(self, event: object) -> None:
        if isinstance(event, ImportProgress):
            if event.path != "library":
                self.row(event.path).progress(event)
        elif isinstance(event, ImportResult):
            self.row(event.path).finish(event)
        self._changed()

    def abandon(self, reason: str) -> None:
        """Mark every queued or running file as failed (its worker is gone)."""
        for row in self.active():
            row.finish(ImportResult(row.path, "failed", reason))
        self._changed()

    def active(self) -> list[ImportRow]:
        return [r for r in self.rows.values() if r.state in ("queued", "running")]

    def clear_finished(self) -> None:
        for path, row in list(self.rows.items()):
            if row.state not in ("queued", "running"):
                row.deleteLater()
                del self.rows[path]
        self.setVisible(bool(self.rows))
        self._changed()

    def _changed(self) -> None:
        busy = bool(self.active())
        self.cancel_button.setVisible(busy)
        self.clear_button.setVisible(len(self.rows) > len(self.active()))
        self.changed.emit()
