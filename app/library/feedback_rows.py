"""The ``feedback`` table: every SQL statement against it (``app.bench.feedback`` turns the
rows into ``Feedback`` entries and decides what they mean)."""

from __future__ import annotations

from typing import Any

from app.library.store import Store

COLUMNS = (
    "created", "question", "answer", "abstained", "rating", "right_pages", "decisions",
    "citations", "pages",
)  # fmt: skip
UPDATABLE = frozenset({"rating", "right_pages"})


def insert_feedback(store: Store, row: tuple[object, ...]) -> int:
    """Store one row (values in the order of ``COLUMNS``); returns its id."""
    marks = ", ".join("?" * len(COLUMNS))
    with store.transaction() as db:
        db.execute(f"INSERT INTO feedback({', '.join(COLUMNS)}) VALUES ({marks})", row)
        return int(db.last_insert_rowid())


def update_feedback(store: Store, feedback_id: int, column: str, value: object) -> bool:
    """Set one column of a row; False when there is no row ``feedback_id``."""
    if column not in UPDATABLE:
        raise ValueError(f"feedback column {column!r} cannot be changed")
    with store.transaction() as db:
        db.execute(f"UPDATE feedback SET {column} = ? WHERE id = ?", (value, feedback_id))
        return bool(db.changes())


def feedback_rows(store: Store, feedback_id: int | None = None) -> list[tuple[Any, ...]]:
    """(id, then ``COLUMNS``) of row ``feedback_id``, or of every row oldest first."""
    where, args = ("WHERE id = ?", (feedback_id,)) if feedback_id is not None else ("", ())
    sql = f"SELECT id, {', '.join(COLUMNS)} FROM feedback {where} ORDER BY id"
    return [tuple(r) for r in store.db.execute(sql, args)]
