"""The decision book: every question's shadow records, kept in the library, and their labels.

A question's decisions are saved when it ends (table ``decision_records``, migration
m009), keyed by its run id (the trace's file name). An outcome labels them later:
``label_decisions`` turns an ``Outcome`` (the technician's thumbs or correction, the
benchmark judge's score, the critic's verdict) into right/wrong for each side of each
decision. A stronger source's label is never overwritten by a weaker one (the technician
over the judge over the critic). Labelled rows are the examples the rolling accuracy,
the calibration and the optimiser read.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from app.agent.shadow import Calibrator, ShadowRecord, same_choice
from app.library import decision_rows

log = logging.getLogger(__name__)
PRIORITY = {"critic": 1, "judge": 2, "feedback": 3}
CALIBRATION_WINDOW = 200


@dataclass(frozen=True, slots=True)
class Outcome:
    """What became of a question. ``good`` is the verdict on the answer given; the truths
    are set when the outcome knows them (None: not known)."""

    source: str  # "feedback", "judge" or "critic"
    good: bool
    should_abstain: bool | None = None
    documents: frozenset[str] | None = None  # file names of the manuals holding the answer
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class StoredDecision:
    """A saved decision with its labels (None: not labelled for that side)."""

    id: int
    run_id: str
    created: str
    question: str
    signature: str
    step: int
    inputs: dict[str, Any]
    rule: dict[str, Any] | None
    llm: dict[str, Any] | None
    confidence: float | None
    calibrated: float | None
    used: str
    program_version: str
    rule_right: bool | None
    llm_right: bool | None
    label_source: str | None
    labelled_at: str | None


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class DecisionBook:
    """The ``decision_records`` table of a library's store."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def save(
        self,
        run_id: str,
        question: str,
        records: Sequence[ShadowRecord],
        *,
        answer: str = "",
        abstained: bool = False,
        program_version: str = "",
    ) -> None:
        created = now()
        rows = [
            (run_id, created, question, answer, int(abstained), *_row(r), program_version)
            for r in records
        ]
        decision_rows.insert_decisions(self.store, rows)

    def run_for(self, question: str, answer: str | None = None) -> str | None:
        """The latest run of ``question`` (with this answer, when one of them has it)."""
        rows = decision_rows.runs_of_question(self.store, question.strip())
        if not rows:
            return None
        if answer is not None:
            for run_id, text in rows:
                if text.strip() == answer.strip():
                    return str(run_id)
        return str(rows[0][0])

    def records(self, run_id: str) -> list[StoredDecision]:
        return self._select("WHERE run_id = ? ORDER BY id", (run_id,))

    def labelled(
        self, signature: str | None = None, limit: int | None = None
    ) -> list[StoredDecision]:
        """Labelled decisions, oldest label first (the last ``limit`` of them)."""
        where = "WHERE labelled_at IS NOT NULL" + (" AND signature = ?" if signature else "")
        args: tuple[Any, ...] = (signature,) if signature else ()
        rows = self._select(f"{where} ORDER BY labelled_at DESC, id DESC", args)
        rows = rows[:limit] if limit else rows
        return rows[::-1]

    def count_labelled(self, since: str | None = None) -> int:
        return decision_rows.count_labelled(self.store, since)

    def calibrator(self) -> Calibrator:
        """A calibrator from the LLM's latest labelled decisions of each signature. Only
        outcomes from outside the model count (the technician, the judge): the critic is
        the same model judging itself."""
        history: dict[str, list[tuple[float | None, bool]]] = {}
        for signature, confidence, right in decision_rows.llm_labels(
            self.store, CALIBRATION_WINDOW
        ):
            history.setdefault(signature, []).append((confidence, right))
        return Calibrator(history)

    def label(self, run_id: str, outcome: Outcome) -> int:
        """Label the run's decisions from ``outcome``; returns how many were labelled."""
        labels = label_decisions(self.records(run_id), outcome)
        if not labels:
            return 0
        rank = PRIORITY.get(outcome.source, 0)
        return decision_rows.set_labels(
            self.store,
            [(row_id, _bit(rule), _bit(llm)) for row_id, rule, llm in labels],
            outcome.source,
            now(),
            lambda old: PRIORITY.get(old or "", 0) > rank,
        )

    def _select(self, where: str, args: tuple[Any, ...]) -> list[StoredDecision]:
        return [_stored(r) for r in decision_rows.select_decisions(self.store, where, args)]


def _row(r: ShadowRecord) -> tuple[Any, ...]:
    return (
        r.signature,
        r.step,
        _dumps(r.inputs),
        _dumps(r.rule),
        _dumps(r.llm),
        r.confidence,
        r.calibrated,
        r.used,
    )


def _stored(r: Sequence[Any]) -> StoredDecision:
    return StoredDecision(
        id=r[0],
        run_id=r[1],
        created=r[2],
        question=r[3],
        signature=r[4],
        step=r[5],
        inputs=json.loads(r[6]),
        rule=json.loads(r[7]),
        llm=json.loads(r[8]),
        confidence=r[9],
        calibrated=r[10],
        used=r[11],
        program_version=r[12],
        rule_right=_bool(r[13]),
        llm_right=_bool(r[14]),
        label_source=r[15],
        labelled_at=r[16],
    )


def label_decisions(
    records: Iterable[StoredDecision], outcome: Outcome
) -> list[tuple[int, bool | None, bool | None]]:
    """(row id, rules right, LLM right) for each decision an outcome says something about.

    Where the outcome knows the truth (abstain or not, which manuals hold the answer), each
    side is right when its choice matches it. Elsewhere the choice that ran is as right as
    the outcome was good, and the other side shares that label only when it chose the same.
    """
    out = []
    for record in records:
        rule = _side_right(record, record.rule, "rules", outcome)
        llm = _side_right(record, record.llm, "llm", outcome) if record.llm is not None else None
        if rule is not None or llm is not None:
            out.append((record.id, rule, llm))
    return out


def _side_right(
    record: StoredDecision, choice: dict[str, Any] | None, side: str, outcome: Outcome
) -> bool | None:
    if choice is None:
        return None
    if record.signature == "answer" and outcome.should_abstain is not None:
        return bool(choice.get("abstain")) == outcome.should_abstain
    if record.signature == "route" and outcome.documents is not None:
        files = set(choice.get("files") or [])
        return not files or bool(files & outcome.documents)
    if record.used == side:
        return outcome.good
    used = record.llm if record.used == "llm" else record.rule
    return outcome.good if same_choice(choice, used) else None


def _bit(value: bool | None) -> int | None:
    return None if value is None else int(value)


def _bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def safe_save(book: DecisionBook, *args: Any, **kwargs: Any) -> None:
    """Save without ever failing a question (a read-only or busy library is logged)."""
    try:
        book.save(*args, **kwargs)
    except Exception as exc:
        log.warning("cannot record the question's decisions: %s", exc)
