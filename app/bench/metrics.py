"""Retrieval and answer metrics: Hit@k, MRR, manual accuracy, key-fact recall, abstention,
the mean judge score and latency.

``METRICS`` is the one definition of each summary figure: its key in a saved summary, its
labels, the tooltip, how it is shown and how it is computed from a block of records. The
runner, the command line's table, the panel's cards and tables, the comparison and the
export all read it, so a new metric is one ``Metric`` here.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from app.bench.dataset import BenchItem

Kind = Literal["count", "rate", "ratio", "score", "seconds"]


@dataclass(frozen=True, slots=True)
class Block:
    """The records of one block of a summary (the whole run, or one category), split the
    way the figures need them."""

    records: Sequence[dict[str, Any]]
    answerable: list[dict[str, Any]]
    unanswerable: list[dict[str, Any]]

    @classmethod
    def of(cls, items: Sequence[BenchItem], records: Sequence[dict[str, Any]]) -> Block:
        pairs = list(zip(items, records, strict=True))
        return cls(
            records,
            [r for it, r in pairs if not it.unanswerable],
            [r for it, r in pairs if it.unanswerable],
        )

    @property
    def ranks(self) -> list[int | None]:
        return [r["score"]["rank"] for r in self.answerable]

    def share(self, counted: Callable[[dict[str, Any]], object]) -> float | None:
        """The share of answerable records for which ``counted`` is true."""
        n = len(self.answerable)
        return round(sum(bool(counted(r)) for r in self.answerable) / n, 3) if n else None


@dataclass(frozen=True, slots=True)
class Metric:
    """One summary figure, everywhere it is shown.

    Attributes:
        key: Its key in a saved summary (and a run's JSON).
        label: Its name in the panel, its cards and the exported report.
        head: Its short column head in the command line's table.
        kind: How a value reads: "rate" in percent, "ratio" to two places, "score" whole,
            "seconds" with a unit, "count" as is.
        compute: Its value for a block of records (None when nothing to measure).
        tip: What it measures, in a sentence (a card's tooltip); "" for none.
        lower_is_better: A smaller value is the better one (a comparison's arrow).
        card: Shown as a card and a row in the panel (the question count is not).
    """

    key: str
    label: str
    head: str
    kind: Kind
    compute: Callable[[Block], Any]
    tip: str = ""
    lower_is_better: bool = False
    card: bool = True

    def format(self, value: Any) -> str:
        return format_figure(value, self.kind)


def format_figure(value: Any, kind: str) -> str:
    """A summary value as a reader wants it: rates in percent, seconds with a unit."""
    if value is None:
        return "–"
    if kind == "rate":
        return f"{100 * value:.0f}%"
    if kind == "ratio":
        return f"{value:.2f}"
    if kind == "score":
        return f"{value:.0f}"
    if kind == "seconds":
        return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
    return str(value)


def _hit(k: int) -> Metric:
    return Metric(
        f"hit@{k}", f"Hit@{k}", f"Hit@{k}", "rate",
        lambda b: _rate(b.ranks, k, len(b.answerable)),
        "Share of answerable questions whose right page was ranked first" if k == 1 else "",
    )  # fmt: skip


def _mrr(b: Block) -> float | None:
    n = len(b.answerable)
    return round(sum(1 / r for r in b.ranks if r) / n, 3) if n else None


def _fact_recall(b: Block) -> float | None:
    total = sum(r["score"]["facts_total"] for r in b.answerable)
    return round(sum(r["score"]["facts_found"] for r in b.answerable) / total, 3) if total else None


def _abstention(b: Block) -> float | None:
    unans = b.unanswerable
    return round(sum(r["abstained"] for r in unans) / len(unans), 3) if unans else None


def _latency(pct: int) -> Callable[[Block], float | None]:
    return lambda b: _pct([r["timings"]["total"] for r in b.records], pct)


# The summary's figures, in the order tables show them.
METRICS: tuple[Metric, ...] = (
    Metric("questions", "Questions", "n", "count", lambda b: len(b.records), card=False),
    _hit(1),
    _hit(3),
    _hit(5),
    Metric("mrr", "MRR", "MRR", "ratio", _mrr, "Mean reciprocal rank of the first right page"),
    Metric(
        "manual_accuracy", "Manual accuracy", "manual", "rate",
        lambda b: b.share(lambda r: r["score"]["document_correct"]),
        "Share of answerable questions whose top page is in the right manual",
    ),
    Metric(
        "key_fact_recall", "Key-fact recall", "facts", "rate", _fact_recall,
        "Share of the key facts found in the answers",
    ),
    Metric(
        "abstention_accuracy", "Abstention accuracy", "abstain", "rate", _abstention,
        "Share of unanswerable questions where the agent said so",
    ),
    Metric(
        "false_abstentions", "False abstentions", "false-abst", "count",
        lambda b: sum(r["abstained"] for r in b.answerable),
        "Answerable questions the agent said the manuals do not answer",
        lower_is_better=True,
    ),
    Metric(
        "judge_mean", "Judge mean", "judge", "score",
        lambda b: _mean([r["judge"]["score"] for r in b.records if r.get("judge")]),
        "Mean judge score, 0-100",
    ),
    Metric("latency_p50_s", "Latency p50", "p50 s", "seconds", _latency(50), lower_is_better=True),
    Metric("latency_p95_s", "Latency p95", "p95 s", "seconds", _latency(95), lower_is_better=True),
)  # fmt: skip
BY_KEY = {m.key: m for m in METRICS}
# (key, short head) of every figure, for the command line's table.
FIGURES: tuple[tuple[str, str], ...] = tuple((m.key, m.head) for m in METRICS)


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("\u00a0", " ")).strip()


def fact_found(fact: str, answer: str) -> bool:
    """A key fact is in an answer, ignoring case, spacing and '12 V' vs '12V'."""
    a, f = normalise(answer), normalise(fact)
    return f in a or f.replace(" ", "") in a.replace(" ", "")


def first_hit_rank(item: BenchItem, pages: Sequence[Mapping[str, Any]]) -> int | None:
    gold = item.gold_pages()
    for rank, page in enumerate(pages, start=1):
        if (page["document"], page["page"]) in gold:
            return rank
    return None


def score_record(item: BenchItem, record: dict[str, Any]) -> dict[str, Any]:
    """Per-question figures the summary aggregates."""
    rank = first_hit_rank(item, record["pages"])
    facts = [f for f in item.key_facts if fact_found(f, record["answer"])]
    top_doc = record["pages"][0]["document"] if record["pages"] else None
    return {
        "rank": rank,
        "facts_found": len(facts),
        "facts_total": len(item.key_facts),
        "missing_facts": [f for f in item.key_facts if f not in facts],
        "document_correct": (top_doc in item.gold_documents()) if item.evidence else None,
        "abstention_correct": record["abstained"] == item.unanswerable,
    }


def summarise(items: Sequence[BenchItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    summary = _block(items, records)
    by_category: dict[str, list[int]] = defaultdict(list)
    for i, item in enumerate(items):
        by_category[item.category].append(i)
    summary["per_category"] = {
        cat: _block([items[i] for i in idx], [records[i] for i in idx])
        for cat, idx in sorted(by_category.items())
    }
    return summary


def _block(items: Sequence[BenchItem], records: Sequence[dict[str, Any]]) -> dict[str, Any]:
    block = Block.of(items, records)
    return {m.key: m.compute(block) for m in METRICS}


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 1) if values else None


def _rate(ranks: list[int | None], k: int, n: int) -> float | None:
    return round(sum(1 for r in ranks if r is not None and r <= k) / n, 3) if n else None


def _pct(values: list[float], pct: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 4)
    return round(statistics.quantiles(values, n=100, method="inclusive")[pct - 1], 4)
