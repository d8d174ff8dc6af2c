"""Export buttons: the run on screen as JSON, CSV (one row per question) or a
self-contained HTML report, written by ``app.bench.export``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLabel, QPushButton, QWidget

from app.ui.widgets import named

FORMATS = {
    "json": ("JSON", "JSON (*.json)"),
    "csv": ("CSV", "CSV, one row per question (*.csv)"),
    "html": ("HTML", "HTML report (*.html)"),
}


def export_run(run: dict[str, Any], kind: str, path: Path) -> Path:
    """Write ``run`` as ``kind`` ("json", "csv" or "html") to ``path``."""
    from app.bench import export

    writer = {"json": export.export_json, "csv": export.export_csv, "html": export.export_html}
    return writer[kind](run, path)  # type: ignore[no-any-return]


class ExportButtons(QWidget):
    exported = Signal(str)  # the file written
    failed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.run: dict[str, Any] | None = None
        self.folder = str(Path.home())
        self.buttons: dict[str, QPushButton] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(named(QLabel("Export"), "benchFieldLabel"))
        for kind, (label, _filter) in FORMATS.items():
            button = QPushButton(label, self)
            button.setToolTip(f"Save the run on screen as {_filter}")
            button.clicked.connect(lambda _=False, k=kind: self.export(k))
            self.buttons[kind] = button
            layout.addWidget(button)
        self.set_run(None)

    def set_run(self, run: dict[str, Any] | None) -> None:
        self.run = run
        for button in self.buttons.values():
            button.setEnabled(run is not None)

    def export(self, kind: str) -> Path | None:
        """Ask where, then write; returns the file written (None if cancelled or failed)."""
        if self.run is None:
            return None
        name = f"{self.run.get('id') or 'benchmark-run'}.{kind}"
        path, _ = QFileDialog.getSaveFileName(
            self,
            f"Export the run as {FORMATS[kind][0]}",
            str(Path(self.folder) / name),
            FORMATS[kind][1],
        )
        if not path:
            return None
        try:
            written = export_run(self.run, kind, Path(path))
        except OSError as exc:
            self.failed.emit(f"cannot write {path}: {exc}")
            return None
        self.folder = str(Path(path).parent)
        self.exported.emit(str(written))
        return written
