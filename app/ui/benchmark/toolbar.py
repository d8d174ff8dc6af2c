"""The panel's bar: the dataset and library, Run and Stop, the progress of a run with the
question being answered, and the export buttons."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.ui.benchmark.exports import ExportButtons
from app.ui.widgets import named, repolish

RUN_TIP = "Answer every question of the dataset blind, then judge it"


class RunBar(QWidget):
    def __init__(self, library_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("benchToolbar")
        self.library_dir = library_dir
        self.dataset_label = named(QLabel("No dataset"), "benchValue")
        self.choose_button = QPushButton("Choose…", self)
        self.choose_button.setToolTip("Choose a benchmark dataset (JSON)")
        self.library_label = named(QLabel(str(library_dir)), "benchValue")
        self.library_label.setToolTip(str(library_dir))
        # Long paths and messages are cut rather than holding the window wide open; the
        # library's Change… button stays beside its path.
        self.library_label.setMinimumWidth(60)
        self.library_button = QPushButton("Change…", self)
        self.library_button.setToolTip("Open another library, or an empty folder for a new one")
        self.run_button = named(QPushButton("Run", self), "benchPrimary")
        self.stop_button = QPushButton("Stop", self)
        self.stop_button.setToolTip("Stop after the question being answered")
        self.progress = QProgressBar(self)
        self.progress.setFixedHeight(8)
        self.progress.setMinimumWidth(80)
        self.progress.setMaximumWidth(220)
        self.progress.setTextVisible(False)
        self.progress.hide()
        self.status = named(QLabel(""), "benchStatus")
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.exports = ExportButtons(self)
        self._layout()

    def _layout(self) -> None:
        first = QHBoxLayout()
        first.addWidget(named(QLabel("Dataset"), "benchFieldLabel"))
        first.addWidget(self.dataset_label)
        first.addWidget(self.choose_button)
        first.addSpacing(20)
        first.addWidget(named(QLabel("Library"), "benchFieldLabel"))
        first.addWidget(self.library_label)
        first.addWidget(self.library_button)
        first.addStretch(1)
        first.addWidget(self.run_button)
        first.addWidget(self.stop_button)
        second = QHBoxLayout()
        second.addWidget(self.progress)
        second.addWidget(self.status, 1)
        second.addWidget(self.exports)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 8)
        layout.setSpacing(6)
        layout.addLayout(first)
        layout.addLayout(second)

    def set_dataset(self, path: str) -> None:
        self.dataset_label.setText(Path(path).name)
        self.dataset_label.setToolTip(path)

    def set_library(self, documents: int) -> None:
        plural = "s" if documents != 1 else ""
        self.library_label.setText(f"{self.library_dir} · {documents} manual{plural}")

    def set_library_dir(self, library_dir: Path) -> None:
        """Another library was opened; its count follows with its first LibraryState."""
        self.library_dir = library_dir
        self.library_label.setText(str(library_dir))
        self.library_label.setToolTip(str(library_dir))

    def set_state(self, running: bool, has_dataset: bool, has_run: bool) -> None:
        self.run_button.setEnabled(has_dataset and not running)
        self.run_button.setToolTip(RUN_TIP if has_dataset else "Choose a dataset first")
        self.stop_button.setEnabled(running)
        self.choose_button.setEnabled(not running)
        self.library_button.setEnabled(not running)
        self.exports.setEnabled(not running and has_run)

    def start(self, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.progress.show()

    def say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setToolTip(text)
        self.status.setProperty("error", error)
        repolish(self.status)
