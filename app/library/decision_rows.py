"""The ``decision_records`` table (migration m009): every question's decisions, the rules'
and the LLM's side by side, and their labels. The agent's ``DecisionBook`` reads and
writes them through these queries; the SQL stays in the library."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from app.library.store import Store

COLUMNS = (
    "id, run_id, created, question, signature, step, inputs, rule_choice, llm_choice,"
    " llm_confidence, calibrated, used, program_version, rule_right, llm_right, label_source,"
    " labelled_at"
)


def insert_decisions(store: Store, rows: Sequence[tuple[Any, ...]]) -> None:
    """Rows of (run_id, created, question, answer, abstained, signature, step, inputs,
    rule_choice, llm_choice, llm_confidence, calibrated, used, program_version)."""
    with store.transaction() as db:
        db.executemany(
            "INSERT INTO decision_records(run_id, created, question, answer, abstained,"
            " signature, step, inputs, rule_choice, llm_choice, llm_confidence, calibrated,"
            " used, program_version) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )


def runs_of_question(store: Store, question: str) -> list[tuple[str, str]]:
    """(run_id, answer) of every run of a question, newest first."""
    sql = "SELECT run_id, answer FROM decision_records WHERE question = ? ORDER BY id DESC"
    return [(str(r), str(a)) for r, a in store.db.execute(sql, (question,))]


def select_decisions(store: Store, where: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """Rows of ``COLUMNS`` matching ``where`` (a WHERE and ORDER BY clause with ``?``s)."""
    sql = f"SELECT {COLUMNS} FROM decision_records {where}"
    return [tuple(r) for r in store.db.execute(sql, args)]


def count_labelled(store: Store, since: str | None = None) -> int:
    sql = "SELECT COUNT(*) FROM decision_records WHERE labelled_at IS NOT NULL"
    args: tuple[Any, ...] = ()
    if since:
        sql, args = sql + " AND labelled_at > ?", (since,)
    row = store.db.execute(sql, args).fetchone()
    return int(row[0]) if row else 0


def llm_labels(store: Store, limit: int) -> list[tuple[str, float | None, bool]]:
    """(signature, LLM confidence, LLM right) of the latest labels not set by the critic."""
    sql = (
        "SELECT signature, llm_confidence, llm_right FROM decision_records"
        " WHERE llm_right IS NOT NULL AND label_source != 'critic'"
        " ORDER BY labelled_at DESC, id DESC LIMIT ?"
    )
    return [(str(s), c, bool(r)) for s, c, r in store.db.execute(sql, (limit,))]


def set_labels(
    store: Store,
    labels: Iterable[tuple[int, int | None, int | None]],
    source: str,
    stamp: str,
    outranks: Callable[[str | None], bool],
) -> int:
    """Set (row id, rule right, LLM right) from ``source``, except on rows whose label
    source ``outranks`` it; returns how many rows were labelled."""
    done = 0
    with store.transaction() as db:
        for row_id, rule_right, llm_right in labels:
            old = db.execute(
                "SELECT label_source FROM decision_records WHERE id = ?", (row_id,)
            ).fetchone()
            if old and old[0] and outranks(old[0]):
                continue
            db.execute(
                "UPDATE decision_records SET rule_right = ?, llm_right = ?, label_source = ?,"
                " labelled_at = ? WHERE id = ?",
                (rule_right, llm_right, source, stamp, row_id),
            )
            done += 1
    return done
