"""The summary block: the run's headline figures as cards, and every figure per category
in a small table (the same numbers ``python -m app bench`` prints)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.bench.metrics import BY_KEY
from app.ui.benchmark.records import FIGURES, format_figure
from app.ui.widgets import named


class Card(QFrame):
    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("benchCard")
        self.value = named(QLabel("–"), "benchCardValue")
        self.label = named(QLabel(label), "benchCardLabel")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(0)
        layout.addWidget(self.value)
        layout.addWidget(self.label)


class SummaryCards(QWidget):
    """One card per headline figure of the whole run."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: dict[str, Card] = {}
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        for key, label, _kind in FIGURES:
            card = Card(label, self)
            card.setToolTip(BY_KEY[key].tip or label)
            self.cards[key] = card
            layout.addWidget(card, 1)

    def set_summary(self, summary: dict[str, Any]) -> None:
        for key, _label, kind in FIGURES:
            self.cards[key].value.setText(format_figure(summary.get(key), kind))

    def text(self, key: str) -> str:
        return self.cards[key].value.text()


class CategoryTable(QTableWidget):
    """Every figure of the summary (rows) for all questions and for each category
    (columns): figures down the side, so that the long list of them never scrolls
    sideways."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(len(FIGURES) + 1, 0, parent)
        self.setObjectName("benchCategories")
        self.setVerticalHeaderLabels(["Questions"] + [label for _, label, _ in FIGURES])
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.verticalHeader().setDefaultSectionSize(22)
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setMinimumSectionSize(56)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.columns: list[str] = []

    def set_summary(self, summary: dict[str, Any]) -> None:
        blocks = [("All", summary), *(summary.get("per_category") or {}).items()] if summary else []
        self.columns = [name for name, _ in blocks]
        self.setColumnCount(len(blocks))
        self.setHorizontalHeaderLabels(self.columns)
        for column, (_name, block) in enumerate(blocks):
            cells = [str(block.get("questions", ""))]
            cells += [format_figure(block.get(k), kind) for k, _, kind in FIGURES]
            for row, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if column == 0:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.setItem(row, column, item)
        self._fit()

    def _fit(self) -> None:
        """Ask for the room the figures need, so none is cut off or scrolls."""
        self.resizeColumnsToContents()
        frame = 2 * self.frameWidth()
        width = self.verticalHeader().sizeHint().width() + frame
        width += sum(self.columnWidth(c) for c in range(self.columnCount()))
        height = self.horizontalHeader().sizeHint().height() + frame
        height += sum(self.rowHeight(r) for r in range(self.rowCount()))
        self.setMinimumSize(width + 2, height + 2)

    def value(self, category: str, key: str) -> str:
        """The text shown for figure ``key`` of ``category`` ("All" for every question)."""
        row = 1 + [k for k, _, _ in FIGURES].index(key)
        item = self.item(row, self.columns.index(category))
        return item.text() if item is not None else ""
