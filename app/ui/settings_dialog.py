"""The models and settings dialog: which models are installed and what each is used for,
their size and memory, the mode (no-LLM or with an LLM), the explicit download action
(the app's only network use, run by the worker with progress), and every setting."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.config import LLM_OFF, Settings
from app.runtime.model_files import RUNTIME_OVERHEAD
from app.ui.settings_form import SettingsForm
from app.ui.statusbar import format_bytes
from app.ui.widgets import named
from app.worker.messages import DownloadUpdate, ModelsListed

PURPOSE = {
    "llm": "Answers and agent decisions",
    "vlm": "Reading page images (diagrams, tables, scans)",
    "colqwen": "Visual page search",
    "embedder": "Text search (embeddings)",
}
COLUMNS = ("Model", "Used for", "Size", "Memory", "Fits", "Where", "")
COLUMN_WIDTHS = (240, 200, 70, 80, 40, 100, 96)


def memory_text(settings: Settings) -> str:
    """The budget line shown before the worker reports what is loaded."""
    idle = settings.idle_unload_minutes
    after = f"models idle for {idle:g} min are unloaded" if idle > 0 else "idle models stay loaded"
    return f"Memory budget {settings.memory_budget_gb:.1f} GB · {after}"


def in_use(row: Any, settings: Settings) -> bool:
    configured = {settings.llm, settings.vlm, settings.colqwen, settings.embedder} - {""}
    return row.name in configured or (row.path and row.path in configured)


class ModelsDialog(QDialog):
    download_requested = Signal(str)
    saved = Signal(object)  # Settings

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Models and settings")
        self.resize(860, 620)
        self.settings = settings
        self.bars: dict[str, QProgressBar] = {}
        self.mode = QComboBox()
        self.mode.addItem("No LLM: answers quote the manuals (works on any machine)", LLM_OFF)
        self.mode.addItem("Automatic: the best installed LLM, else no LLM", "")
        self._select_mode()
        self.memory = named(QLabel(memory_text(settings)), "docMeta")
        self.memory.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self._size_columns()
        self.note = named(QLabel("Looking for models…"), "docMeta")
        self.note.setWordWrap(True)
        self.form = SettingsForm(settings)
        tabs = QTabWidget()
        tabs.addTab(self._models_page(), "Models")
        tabs.addTab(self._scrolled(self.form), "Settings")
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(tabs)
        layout.addWidget(buttons)

    def _size_columns(self) -> None:
        header = self.table.horizontalHeader()
        header.setMinimumSectionSize(36)
        for column, width in enumerate(COLUMN_WIDTHS):
            self.table.setColumnWidth(column, width)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.setWordWrap(True)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)

    def _models_page(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        mode_row = QHBoxLayout()
        mode_row.addWidget(QLabel("Mode:"))
        mode_row.addWidget(self.mode, 1)
        layout.addLayout(mode_row)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.memory)
        layout.addWidget(self.note)
        return page

    def _scrolled(self, widget: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidget(widget)
        area.setWidgetResizable(True)
        return area

    def _select_mode(self) -> None:
        wanted = LLM_OFF if self.settings.llm_off else self.settings.llm
        current = self.mode.findData(wanted)
        if current >= 0:
            self.mode.setCurrentIndex(current)

    # ---- models ------------------------------------------------------------------------------
    def set_models(self, listed: ModelsListed) -> None:
        rows = list(listed.rows)
        self.table.setRowCount(len(rows))
        for index, row in enumerate(rows):
            self._fill_row(index, row)
            if row.kind == "llm" and row.location != "not downloaded":
                self.mode.addItem(f"LLM: {row.name}", row.name)
        self._select_mode()
        if listed.memory:
            self.memory.setText(listed.memory)
        installed = sum(1 for r in rows if r.location != "not downloaded")
        self.note.setText(
            listed.error
            or f"{installed} model(s) installed in {self.settings.models_dir} or the Hugging Face "
            "cache. Downloading is the only time Lantern uses the network."
        )

    def _fill_row(self, index: int, row: Any) -> None:
        used = " (in use)" if in_use(row, self.settings) else ""
        purpose = row.purpose or PURPOSE.get(row.kind, row.kind)
        cells = (
            f"{row.name}{used}",
            f"{row.kind}: {purpose}",
            format_bytes(row.size_bytes),
            f"≈ {format_bytes(int(row.size_bytes * RUNTIME_OVERHEAD))}",
            "yes" if row.fits else "no",
            row.location,
        )
        for column, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(row.path or text)
            self.table.setItem(index, column, item)
        if row.location == "not downloaded":
            button = QPushButton("Download")
            button.clicked.connect(lambda _=False, r=row.name: self._download(r))
            self.table.setCellWidget(index, len(COLUMNS) - 1, button)

    def _download(self, repo_id: str) -> None:
        for index in range(self.table.rowCount()):
            item = self.table.item(index, 0)
            if item is not None and item.text().startswith(repo_id):
                bar = QProgressBar()
                bar.setRange(0, 1000)
                bar.setFormat("starting…")
                self.bars[repo_id] = bar
                self.table.setCellWidget(index, len(COLUMNS) - 1, bar)
        self.download_requested.emit(repo_id)

    def on_download(self, update: DownloadUpdate) -> None:
        bar = self.bars.get(update.repo_id)
        if bar is None:
            return
        bar.setValue(int(update.fraction * 1000))
        bar.setTextVisible(True)
        bar.setFormat(update.error[:60] if update.error else update.text or "%p%")
        bar.setToolTip(update.error or update.text)
        if update.finished and not update.error:
            bar.setFormat("installed")

    # ---- saving --------------------------------------------------------------------------------
    def _save(self) -> None:
        settings = self.form.values()
        if settings is None:
            return
        llm = self.mode.currentData()
        # A configured model the combo does not list (models not listed yet) is kept.
        listed = self.mode.findData(self.settings.llm) >= 0 or self.settings.llm_off
        if listed and llm is not None and llm != settings.llm:
            settings = settings.model_copy(update={"llm": llm})
        self.saved.emit(settings)
        self.accept()
