"""The saved runs of the library (``<library>/bench_runs``), newest first: pick one to
read it, pick two to compare them, delete one."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.benchmark.records import format_figure
from app.ui.widgets import named


def run_text(info: Any) -> str:
    """Two lines: when and how many; which dataset, which mode, the headline figures."""
    meta, summary = info.meta, info.summary
    when = meta.started[:16].replace("T", " ")
    stopped = " · stopped" if meta.stopped else ""
    figures = f"Hit@3 {format_figure(summary.get('hit@3'), 'rate')}"
    if summary.get("judge_mean") is not None:
        figures += f" · judge {format_figure(summary.get('judge_mean'), 'score')}"
    return f"{when} · {meta.questions} q{stopped}\n{meta.dataset_name} · {meta.mode}\n{figures}"


class RunsList(QWidget):
    run_selected = Signal(str)  # run id
    compare_requested = Signal(str, str)  # before id, after id
    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list = named(QListWidget(self), "benchRuns")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setWordWrap(True)
        self.list.itemSelectionChanged.connect(self._selection_changed)
        self.compare_button = QPushButton("Compare", self)
        self.compare_button.setToolTip(
            "Compare the two selected runs (or the selected run with the one before it)"
        )
        self.compare_button.clicked.connect(self._compare)
        self.delete_button = QPushButton("Delete", self)
        self.delete_button.clicked.connect(self._delete)
        self.empty = named(QLabel("No saved runs yet. Run the benchmark to save one."), "benchNote")
        self.empty.setWordWrap(True)
        buttons = QHBoxLayout()
        buttons.addWidget(self.compare_button)
        buttons.addWidget(self.delete_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 12, 10, 10)
        layout.addWidget(named(QLabel("Saved runs"), "panelTitle"))
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        self.set_runs([])

    def set_runs(self, runs: list[Any], current: str = "") -> None:
        self.list.blockSignals(True)
        self.list.clear()
        for info in runs:
            item = QListWidgetItem(run_text(info))
            item.setData(Qt.ItemDataRole.UserRole, info.id)
            item.setToolTip(f"{info.label}\n{info.meta.dataset_path}")
            self.list.addItem(item)
            if info.id == current:
                item.setSelected(True)
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        self.empty.setVisible(not runs)
        self._update_buttons()

    def ids(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def selected_ids(self) -> list[str]:
        """Selected runs in list order (newest first)."""
        rows = sorted(self.list.row(item) for item in self.list.selectedItems())
        return [self.list.item(r).data(Qt.ItemDataRole.UserRole) for r in rows]

    def _selection_changed(self) -> None:
        self._update_buttons()
        selected = self.selected_ids()
        if len(selected) == 1:
            self.run_selected.emit(selected[0])

    def _update_buttons(self) -> None:
        selected = self.selected_ids()
        self.delete_button.setEnabled(len(selected) == 1)
        self.compare_button.setEnabled(self.list.count() >= 2)

    def _compare(self) -> None:
        """The two selected runs, older as before; else the selected (or newest) run and the
        one saved before it."""
        selected, ids = self.selected_ids(), self.ids()
        if len(selected) >= 2:
            after, before = selected[0], selected[-1]
        else:
            after = selected[0] if selected else ids[0]
            index = ids.index(after)
            before = ids[index + 1] if index + 1 < len(ids) else ids[index - 1]
        self.compare_requested.emit(before, after)

    def _delete(self) -> None:
        selected = self.selected_ids()
        if len(selected) == 1:
            self.delete_requested.emit(selected[0])
