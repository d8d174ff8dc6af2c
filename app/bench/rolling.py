"""Rolling accuracy of each decision signature: the rules and the LLM side by side.

Over the last ``WINDOW`` labelled decisions of a signature (route, next step, answer or
abstain), how often each side's choice was right, and how often the choice that ran was.
``accuracy_series`` gives the same figure after each labelled decision, for the benchmark
panel's chart over time; ``format_stats`` is what ``python -m app stats`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.agent.decision_book import DecisionBook, StoredDecision
from app.agent.shadow import SIGNATURES

WINDOW = 50
LABELS = {"route": "route to manual", "next_step": "next tool", "answer": "answer or abstain"}


@dataclass(frozen=True, slots=True)
class Accuracy:
    """One signature's accuracy over its window (None: nothing labelled on that side)."""

    signature: str
    labelled: int
    rules: float | None
    rules_n: int
    llm: float | None
    llm_n: int
    followed: float | None  # the decisions that ran
    last_label: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Point:
    """The window's accuracy right after one labelled decision."""

    at: str
    rules: float | None
    llm: float | None


def window_accuracy(signature: str, rows: Sequence[StoredDecision]) -> Accuracy:
    rules = [r.rule_right for r in rows if r.rule_right is not None]
    llm = [r.llm_right for r in rows if r.llm_right is not None]
    followed = [
        right
        for r in rows
        if (right := r.llm_right if r.used == "llm" else r.rule_right) is not None
    ]
    return Accuracy(
        signature,
        len(rows),
        _share(rules),
        len(rules),
        _share(llm),
        len(llm),
        _share(followed),
        rows[-1].labelled_at if rows else None,
    )


def rolling_accuracy(book: DecisionBook, window: int = WINDOW) -> list[Accuracy]:
    """Each signature's accuracy over its last ``window`` labelled decisions."""
    return [window_accuracy(s, book.labelled(s, window)) for s in SIGNATURES]


def accuracy_series(
    book: DecisionBook, signature: str, window: int = WINDOW, points: int = 40
) -> list[Point]:
    """The rolling accuracy after each labelled decision (at most ``points`` of them,
    evenly spread, the latest always included)."""
    rows = book.labelled(signature)
    series = []
    for end in range(1, len(rows) + 1):
        part = window_accuracy(signature, rows[max(0, end - window) : end])
        series.append(Point(str(rows[end - 1].labelled_at), part.rules, part.llm))
    if len(series) <= points:
        return series
    step = len(series) / points
    picked = [series[int(i * step)] for i in range(points - 1)]
    return [*picked, series[-1]]


def _share(values: Sequence[bool]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _cell(value: float | None, n: int) -> str:
    return "-" if value is None else f"{value:.2f} ({n})"


def format_stats(rows: Sequence[Accuracy], window: int = WINDOW) -> str:
    """The accuracy table as plain lines."""
    head = f"{'decision':<20}{'labelled':>9}{'rules':>13}{'LLM':>13}{'followed':>10}"
    lines = [f"rolling accuracy over the last {window} labelled decisions of each kind", head]
    for row in rows:
        followed = "-" if row.followed is None else f"{row.followed:.2f}"
        lines.append(
            f"{LABELS.get(row.signature, row.signature):<20}{row.labelled:>9}"
            f"{_cell(row.rules, row.rules_n):>13}{_cell(row.llm, row.llm_n):>13}{followed:>10}"
        )
    if not any(row.labelled for row in rows):
        lines.append("no labelled decisions yet: rate answers, or run a benchmark")
    return "\n".join(lines)


def by_program_version(infos: Sequence[Any]) -> list[dict[str, Any]]:
    """Saved benchmark runs grouped by the program version that answered them, newest
    version last: runs, questions, and the mean Hit@3, key-fact recall and judge score."""
    groups: dict[str, list[Any]] = {}
    for info in infos:
        groups.setdefault(str(info.meta.program_version or "built-in"), []).append(info)
    rows = []
    for version, runs in groups.items():
        row: dict[str, Any] = {
            "version": version,
            "runs": len(runs),
            "questions": sum(r.meta.questions for r in runs),
            "latest": max(r.meta.started for r in runs),
        }
        for key in ("hit@3", "key_fact_recall", "judge_mean"):
            values = [float(r.summary[key]) for r in runs if r.summary.get(key) is not None]
            row[key] = round(sum(values) / len(values), 3) if values else None
        rows.append(row)
    return sorted(rows, key=lambda r: r["latest"])
