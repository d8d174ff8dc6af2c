"""One run on screen: headline cards, the sortable results table (filled live while a
run goes), the per-category summary and the two charts."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from app.ui.benchmark.charts import CategoryBars, LatencyHistogram
from app.ui.benchmark.records import category_figures, judge_label, latencies
from app.ui.benchmark.results_model import RECORD_ROLE, SORT_ROLE, ResultsModel
from app.ui.benchmark.summary import CategoryTable, SummaryCards
from app.ui.widgets import named

# Starting widths of the table's columns; the answer column takes what is left.
WIDTHS = (58, 96, 90, 200, 0, 58, 230, 70)
ANSWER_COLUMN = 4


class ResultsView(QWidget):
    record_clicked = Signal(object)  # the record dict

    def __init__(self, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = ResultsModel(colors, self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.cards = SummaryCards(self)
        self.heading = named(QLabel(""), "benchHeading")
        self.judge = named(QLabel(""), "benchNote")
        self.table = self._table()
        self.categories = CategoryTable(self)
        self.bars = CategoryBars(colors, self)
        self.histogram = LatencyHistogram(colors, self)
        self._layout()

    def _table(self) -> QTableView:
        table = named(QTableView(self), "benchTable")
        table.setModel(self.proxy)
        table.setSortingEnabled(True)
        table.sortByColumn(-1, Qt.SortOrder.AscendingOrder)  # the dataset's order until asked
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        table.setAlternatingRowColors(True)
        table.setShowGrid(False)
        table.setWordWrap(False)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(26)
        header = table.horizontalHeader()
        header.setHighlightSections(False)
        for column, width in enumerate(WIDTHS):
            if width:
                table.setColumnWidth(column, width)
        header.setSectionResizeMode(ANSWER_COLUMN, QHeaderView.ResizeMode.Stretch)
        table.setToolTip("Click a question to see its answer with the evidence pages")
        table.clicked.connect(self._clicked)
        return table

    def _layout(self) -> None:
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.judge)
        bottom = QSplitter(Qt.Orientation.Horizontal, self)
        bottom.addWidget(self.categories)
        bottom.addWidget(self.bars)
        bottom.addWidget(self.histogram)
        bottom.setSizes([500, 390, 276])
        bottom.setChildrenCollapsible(False)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(self.table)
        split.addWidget(bottom)
        split.setStretchFactor(0, 1)
        split.setSizes([340, 300])
        split.setChildrenCollapsible(False)
        self.split = split
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(8)
        layout.addLayout(top)
        layout.addWidget(self.cards)
        layout.addWidget(split, 1)

    # ---- content ---------------------------------------------------------------------------
    def show_run(
        self, heading: str, summary: dict[str, Any], records: list[dict[str, Any]]
    ) -> None:
        self.model.set_records(records)
        # After the view has laid out the new rows (a live run left it at the bottom).
        QTimer.singleShot(0, self.table.scrollToTop)
        self.set_summary(heading, summary)

    def append_record(self, record: dict[str, Any]) -> None:
        self.model.append(record)
        self.table.scrollToBottom()

    def set_summary(self, heading: str, summary: dict[str, Any]) -> None:
        self.heading.setText(heading)
        self.judge.setText(f"Judge: {judge_label(summary)}" if summary else "")
        self.cards.set_summary(summary)
        self.categories.set_summary(summary)
        self.bars.set_figures(category_figures(summary))
        records = self.model.records
        self.histogram.set_latencies(
            latencies(records), summary.get("latency_p50_s"), summary.get("latency_p95_s")
        )

    def clear(self, heading: str = "") -> None:
        self.show_run(heading, {}, [])

    def _clicked(self, index: QModelIndex) -> None:
        record = self.proxy.data(index, RECORD_ROLE)
        if record is not None:
            self.record_clicked.emit(record)
