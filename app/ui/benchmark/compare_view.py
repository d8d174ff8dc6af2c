"""Two saved runs side by side: every summary figure before, after and the change (green
when it improved, red when it got worse), overall or per category, and the questions that
got better or worse (``app.bench.compare``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bench.compare import Comparison, Delta, QuestionChange, compare_runs
from app.bench.metrics import METRICS
from app.ui.benchmark.records import format_figure
from app.ui.widgets import named

KINDS = {m.key: (m.label, m.kind) for m in METRICS}
ALL = "All questions"


def change_text(delta: Delta) -> str:
    """The change in the figure's own unit: "+12 pts", "-0.40 s", "+3"."""
    change = delta.change
    if change is None or delta.figure not in KINDS:
        return "–"
    if change == 0:
        return "same"
    kind = KINDS[delta.figure][1]
    if kind == "rate":
        return f"{100 * change:+.0f} pts"
    if kind == "ratio":
        return f"{change:+.2f}"
    if kind == "seconds":
        return f"{change:+.2f} s"
    return f"{change:+g}"


def question_line(change: QuestionChange) -> str:
    """ "s03 (direct): page #3 → #1, judge 40 → 80"."""

    def rank(value: int | None) -> str:
        return f"#{value}" if value else "miss"

    def score(value: int | None) -> str:
        return "–" if value is None else str(value)

    parts = []
    if change.before_rank != change.after_rank:
        parts.append(f"page {rank(change.before_rank)} → {rank(change.after_rank)}")
    if change.before_score != change.after_score:
        parts.append(f"judge {score(change.before_score)} → {score(change.after_score)}")
    return f"{change.id} ({change.category}): " + (", ".join(parts) or "no change")


class CompareView(QWidget):
    """Pick a run before and a run after; read what moved."""

    def __init__(self, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.good = QColor(colors["success"])
        self.bad = QColor(colors["error"])
        self.muted = QColor(colors["muted"])
        self.load: Callable[[str], dict[str, Any]] | None = None
        self.comparison: Comparison | None = None
        self.before = QComboBox(self)
        self.after = QComboBox(self)
        self.scope = QComboBox(self)
        for combo in (self.before, self.after):
            combo.setMinimumContentsLength(36)
            combo.currentIndexChanged.connect(lambda _i: self.refresh())
        self.scope.currentTextChanged.connect(lambda _t: self._fill_deltas())
        swap = QPushButton("Swap", self)
        swap.clicked.connect(self.swap)
        self.table = self._delta_table()
        self.better = self._question_list("benchBetter")
        self.worse = self._question_list("benchWorse")
        self.better_title = named(QLabel("Better"), "sectionTitle")
        self.worse_title = named(QLabel("Worse"), "sectionTitle")
        self.note = named(QLabel(""), "benchNote")
        self._layout(swap)

    def _layout(self, swap: QPushButton) -> None:
        pick = QHBoxLayout()
        for text, widget in (("Before", self.before), ("After", self.after)):
            pick.addWidget(named(QLabel(text), "benchFieldLabel"))
            pick.addWidget(widget, 1)
        pick.addWidget(swap)
        pick.addSpacing(16)
        pick.addWidget(named(QLabel("Figures for"), "benchFieldLabel"))
        pick.addWidget(self.scope)
        lists = QGridLayout()
        lists.addWidget(self.better_title, 0, 0)
        lists.addWidget(self.worse_title, 0, 1)
        lists.addWidget(self.better, 1, 0)
        lists.addWidget(self.worse, 1, 1)
        body = QHBoxLayout()
        body.addWidget(self.table, 2)
        body.addLayout(lists, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 12, 12, 12)
        layout.addLayout(pick)
        layout.addWidget(self.note)
        layout.addLayout(body, 1)

    def _question_list(self, name: str) -> QListWidget:
        """Questions that moved, each wrapped to the list's width (no sideways scrolling)."""
        widget = named(QListWidget(self), name)
        widget.setWordWrap(True)
        widget.setResizeMode(QListWidget.ResizeMode.Adjust)
        widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        return widget

    def _delta_table(self) -> QTableWidget:
        table = named(QTableWidget(0, 4, self), "benchDeltas")
        table.setHorizontalHeaderLabels(["Figure", "Before", "After", "Change"])
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        table.setShowGrid(False)
        table.setAlternatingRowColors(True)
        header = table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        return table

    # ---- runs ------------------------------------------------------------------------------
    def set_runs(self, runs: list[Any], load: Callable[[str], dict[str, Any]]) -> None:
        """``runs`` are RunInfo, newest first; by default the newest is compared with the
        one before it."""
        self.load = load
        for combo, default in ((self.before, 1), (self.after, 0)):
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            for info in runs:
                combo.addItem(info.label, info.id)
            index = combo.findData(chosen) if chosen else -1
            combo.setCurrentIndex(index if index >= 0 else min(default, len(runs) - 1))
            combo.blockSignals(False)
        self.refresh()

    def choose(self, before_id: str, after_id: str) -> None:
        for combo, run_id in ((self.before, before_id), (self.after, after_id)):
            combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(run_id))
            combo.blockSignals(False)
        self.refresh()

    def swap(self) -> None:
        self.choose(self.after.currentData(), self.before.currentData())

    def refresh(self) -> None:
        before, after = self.before.currentData(), self.after.currentData()
        self.comparison = None
        if self.load is None or not before or not after:
            self.note.setText(
                "Save two runs to compare them: run the benchmark before and after a change."
            )
        elif before == after:
            self.note.setText("Pick two different runs.")
        else:
            self.comparison = compare_runs(self.load(before), self.load(after))
            self.note.setText("")
        self._fill_scopes()
        self._fill_deltas()
        self._fill_questions()

    def _fill_scopes(self) -> None:
        chosen = self.scope.currentText() or ALL
        names = [ALL, *(self.comparison.per_category if self.comparison else {})]
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItems(names)
        self.scope.setCurrentIndex(max(0, self.scope.findText(chosen)))
        self.scope.blockSignals(False)

    def _fill_deltas(self) -> None:
        deltas: list[Delta] = []
        if self.comparison is not None:
            scope = self.scope.currentText()
            deltas = self.comparison.per_category.get(scope, self.comparison.overall)
        deltas = [d for d in deltas if d.figure in KINDS]
        self.table.setRowCount(len(deltas))
        for row, delta in enumerate(deltas):
            label, kind = KINDS[delta.figure]
            cells = [
                label,
                format_figure(delta.before, kind),
                format_figure(delta.after, kind),
                change_text(delta),
            ]
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                if column == 3:
                    improved = delta.improved
                    item.setForeground(
                        self.muted if improved is None else self.good if improved else self.bad
                    )
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()

    def _fill_questions(self) -> None:
        comparison = self.comparison
        for widget, title, name, changes in (
            (self.better, self.better_title, "Got better", comparison.better if comparison else []),
            (self.worse, self.worse_title, "Got worse", comparison.worse if comparison else []),
        ):
            widget.clear()
            for change in changes:
                item = QListWidgetItem(f"{question_line(change)}\n{change.query}")
                item.setToolTip(change.query)
                item.setData(Qt.ItemDataRole.UserRole, change.id)
                widget.addItem(item)
            title.setText(f"{name} ({len(changes)})")
