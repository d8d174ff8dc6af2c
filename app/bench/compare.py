"""Two runs side by side (before and after a change): how each figure moved, and which
questions got better or worse.

Questions are matched by id. One got better when the right page now ranks higher (no hit
counts as below every rank), or, at the same rank, when the judge scores it higher; the
judge alone decides unanswerable questions, which have no right page.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from app.bench.metrics import METRICS

# Figures where a smaller number is the better one.
LOWER_IS_BETTER = frozenset(m.key for m in METRICS if m.lower_is_better)
FIGURES = tuple(m.key for m in METRICS)


@dataclass(frozen=True, slots=True)
class Delta:
    """One summary figure in both runs; ``improved`` is None when it cannot tell."""

    figure: str
    before: float | None
    after: float | None

    @property
    def change(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return round(self.after - self.before, 4)

    @property
    def improved(self) -> bool | None:
        change = self.change
        if not change or self.figure == "questions":
            return None
        return change < 0 if self.figure in LOWER_IS_BETTER else change > 0


@dataclass(frozen=True, slots=True)
class QuestionChange:
    """One question in both runs: its right-page rank and judge score before and after."""

    id: str
    category: str
    query: str
    before_rank: int | None
    after_rank: int | None
    before_score: int | None
    after_score: int | None
    outcome: str  # "better", "worse" or "same"


@dataclass(frozen=True, slots=True)
class Comparison:
    """Run ``a`` (before) against run ``b`` (after)."""

    overall: list[Delta]
    per_category: dict[str, list[Delta]]
    better: list[QuestionChange] = field(default_factory=list)
    worse: list[QuestionChange] = field(default_factory=list)
    same: list[QuestionChange] = field(default_factory=list)
    only_before: list[str] = field(default_factory=list)
    only_after: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        def deltas(items: list[Delta]) -> list[dict[str, Any]]:
            return [{**asdict(d), "change": d.change, "improved": d.improved} for d in items]

        return {
            "overall": deltas(self.overall),
            "per_category": {c: deltas(d) for c, d in self.per_category.items()},
            "better": [asdict(q) for q in self.better],
            "worse": [asdict(q) for q in self.worse],
            "same": [asdict(q) for q in self.same],
            "only_before": self.only_before,
            "only_after": self.only_after,
        }


def compare_runs(a: dict[str, Any], b: dict[str, Any]) -> Comparison:
    """Compare run ``a`` (before) with run ``b`` (after): saved runs or run_bench results."""
    sa, sb = a["summary"], b["summary"]
    categories = sorted(set(sa.get("per_category", {})) | set(sb.get("per_category", {})))
    per_category = {
        c: _deltas(sa.get("per_category", {}).get(c, {}), sb.get("per_category", {}).get(c, {}))
        for c in categories
    }
    before = {r["id"]: r for r in a["records"]}
    after = {r["id"]: r for r in b["records"]}
    changes: dict[str, list[QuestionChange]] = {"better": [], "worse": [], "same": []}
    for qid, old in before.items():
        if qid in after:
            change = _question(old, after[qid])
            changes[change.outcome].append(change)
    return Comparison(
        overall=_deltas(sa, sb),
        per_category=per_category,
        better=changes["better"],
        worse=changes["worse"],
        same=changes["same"],
        only_before=[q for q in before if q not in after],
        only_after=[q for q in after if q not in before],
    )


def _deltas(a: dict[str, Any], b: dict[str, Any]) -> list[Delta]:
    return [Delta(f, a.get(f), b.get(f)) for f in FIGURES if f in a or f in b]


def _question(old: dict[str, Any], new: dict[str, Any]) -> QuestionChange:
    ranks = (_rank(old), _rank(new))
    scores = (_score(old), _score(new))
    if ranks[0] != ranks[1]:
        outcome = "better" if _rank_key(ranks[1]) < _rank_key(ranks[0]) else "worse"
    elif None not in scores and scores[0] != scores[1]:
        outcome = "better" if scores[1] > scores[0] else "worse"  # type: ignore[operator]
    else:
        outcome = "same"
    return QuestionChange(
        id=str(new["id"]),
        category=str(new.get("category", old.get("category", ""))),
        query=str(new.get("query") or old.get("query") or ""),
        before_rank=ranks[0],
        after_rank=ranks[1],
        before_score=scores[0],
        after_score=scores[1],
        outcome=outcome,
    )


def _rank(record: dict[str, Any]) -> int | None:
    rank = (record.get("score") or {}).get("rank")
    return int(rank) if rank is not None else None


def _rank_key(rank: int | None) -> float:
    return float("inf") if rank is None else rank


def _score(record: dict[str, Any]) -> int | None:
    verdict = record.get("judge")
    return int(verdict["score"]) if verdict else None
