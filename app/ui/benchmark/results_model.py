"""The results table's model: one row per finished question, filled live during a run.

The display role holds short text (the answer elided to one line, the full text in the
tooltip); ``SORT_ROLE`` holds numbers where the column is numeric, so sorting by hit,
judge score or time orders by value rather than by text.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor

from app.ui.benchmark import records as rec

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
RECORD_ROLE = Qt.ItemDataRole.UserRole + 2
Index = QModelIndex | QPersistentModelIndex

COLUMNS = (
    "ID",
    "Category",
    "Hit",
    "Cited pages",
    "Answer",
    "Judge",
    "Missing / wrong facts",
    "Time",
)
ANSWER_CHARS = 140


class ResultsModel(QAbstractTableModel):
    def __init__(self, colors: dict[str, str], parent: Any = None) -> None:
        super().__init__(parent)
        self.records: list[dict[str, Any]] = []
        self.good = QColor(colors["success"])
        self.bad = QColor(colors["error"])
        self.muted = QColor(colors["muted"])

    def set_records(self, records: list[dict[str, Any]]) -> None:
        self.beginResetModel()
        self.records = list(records)
        self.endResetModel()

    def append(self, record: dict[str, Any]) -> None:
        row = len(self.records)
        self.beginInsertRows(QModelIndex(), row, row)
        self.records.append(record)
        self.endInsertRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.records)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        record = self.records[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(record, column)
        if role == SORT_ROLE:
            return self._sort_value(record, column)
        if role == RECORD_ROLE:
            return record
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(record, column)
        if role == Qt.ItemDataRole.ForegroundRole:
            return self._color(record, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 5, 7):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def _text(self, record: dict[str, Any], column: int) -> str:
        if column == 0:
            return str(record.get("id", ""))
        if column == 1:
            return str(record.get("category", ""))
        if column == 2:
            return rec.hit_text(record)
        if column == 3:
            return rec.cited_pages(record) or "–"
        if column == 4:
            text = rec.one_line(record.get("answer", ""))
            return text if len(text) <= ANSWER_CHARS else text[: ANSWER_CHARS - 1] + "…"
        if column == 5:
            score = rec.judge_score(record)
            return "–" if score is None else str(score)
        if column == 6:
            return rec.facts_text(record)
        return f"{rec.total_time(record):.2f} s"

    def _sort_value(self, record: dict[str, Any], column: int) -> Any:
        if column == 2:
            return rec.hit_sort_key(record)
        if column == 5:
            score = rec.judge_score(record)
            return -1 if score is None else score
        if column == 7:
            return rec.total_time(record)
        return self._text(record, column).lower()

    def _tooltip(self, record: dict[str, Any], column: int) -> str | None:
        if column == 4:
            return str(record.get("answer", "")) or None
        if column in (0, 1):
            return str(record.get("query", "")) or None
        if column == 5:
            return (record.get("judge") or {}).get("reasoning") or None
        if column == 6:
            return rec.facts_text(record) or None
        return None

    def _color(self, record: dict[str, Any], column: int) -> QColor | None:
        if column == 2:
            good = rec.hit_sort_key(record) <= 3
            return self.good if good else self.bad
        if column == 5:
            score = rec.judge_score(record)
            if score is None:
                return self.muted
            return self.good if score >= 70 else self.bad if score < 40 else None
        if column == 6:
            return self.bad
        return None
