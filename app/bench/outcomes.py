"""Outcomes that label a question's decisions: the technician's feedback and the judge.

A thumbs up says the answer given (or the abstention) was right; a thumbs down on an
abstention says the manuals do answer; a page marked right names the manual that holds
the answer (a correction). The benchmark judge knows more: whether the item is
unanswerable and which manuals hold the answer. Each becomes an ``Outcome`` that labels
the decisions of the question's latest run (``app.agent.decision_book``); the critic's
verdict labels them first, when the question ends, and is overruled by these.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from app.agent.decision_book import DecisionBook, Outcome
from app.bench.dataset import BenchItem

log = logging.getLogger(__name__)
# A judged answer scoring this much (of 100) is a good outcome.
GOOD_SCORE = 60


def feedback_outcome(entry: Any) -> Outcome | None:
    """What a feedback entry says about its question (None: no verdict given yet)."""
    if entry.rating == 0 and not entry.right_pages:
        return None
    marked = frozenset(d for d, _ in entry.right_pages)
    cited = {str(c.get("document")) for c in entry.citations}
    if entry.right_pages:
        # A correction: the answer is in the manuals, on the pages marked.
        good = entry.rating == 1 or (entry.rating == 0 and bool(cited & marked))
        return Outcome("feedback", good, should_abstain=False, documents=marked)
    if entry.rating == 1:
        documents = None if entry.abstained else frozenset(cited) or None
        return Outcome("feedback", True, should_abstain=entry.abstained, documents=documents)
    # Thumbs down: on an abstention the manuals do answer; on an answer, it was wrong.
    return Outcome("feedback", False, should_abstain=False if entry.abstained else None)


def label_feedback(store: Any, entry: Any) -> int:
    """Label the decisions of the run that answered ``entry``; returns how many."""
    outcome = feedback_outcome(entry)
    if outcome is None:
        return 0
    book = DecisionBook(store)
    run_id = book.run_for(entry.question, entry.answer)
    return book.label(run_id, outcome) if run_id else 0


def judged_outcome(item: BenchItem, record: Mapping[str, Any]) -> Outcome:
    """The judge's verdict on a benchmark record, with the item's ground truth."""
    score = int((record.get("judge") or {}).get("score") or 0)
    documents = frozenset(item.gold_documents()) or None
    return Outcome(
        "judge",
        score >= GOOD_SCORE,
        should_abstain=item.unanswerable,
        documents=None if item.unanswerable else documents,
        detail={"score": score, "item": item.id},
    )


def label_judged(store: Any, item: BenchItem, record: Mapping[str, Any]) -> int:
    """Label the decisions of the run behind a judged benchmark record (its trace names
    the run); returns how many."""
    trace = str(record.get("trace") or "")
    if not trace:
        return 0
    return DecisionBook(store).label(Path(trace).stem, judged_outcome(item, record))


def judge_labeller(store: Any) -> Callable[[BenchItem, dict[str, Any]], None]:
    """A ``run_bench`` hook labelling each judged question's decisions (never failing the
    run: a library that cannot be written is logged)."""

    def label(item: BenchItem, record: dict[str, Any]) -> None:
        try:
            record["labelled_decisions"] = label_judged(store, item, record)
        except Exception as exc:
            log.warning("cannot label the decisions of %s: %s", item.id, exc)

    return label
