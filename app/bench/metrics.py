"""Retrieval and answer metrics: Hit@k, MRR, manual accuracy, key-fact recall, abstention,
and the mean judge score."""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from app.bench.dataset import BenchItem

# The summary's figures, in the order tables show them, with a short column head each.
FIGURES: tuple[tuple[str, str], ...] = (
    ("questions", "n"),
    ("hit@1", "Hit@1"),
    ("hit@3", "Hit@3"),
    ("hit@5", "Hit@5"),
    ("mrr", "MRR"),
    ("manual_accuracy", "manual"),
    ("key_fact_recall", "facts"),
    ("abstention_accuracy", "abstain"),
    ("false_abstentions", "false-abst"),
    ("judge_mean", "judge"),
    ("latency_p50_s", "p50 s"),
    ("latency_p95_s", "p95 s"),
)


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
    answerable = [(it, r) for it, r in zip(items, records, strict=True) if not it.unanswerable]
    ranks = [r["score"]["rank"] for _, r in answerable]
    n = len(answerable)
    facts_total = sum(r["score"]["facts_total"] for _, r in answerable)
    unans = [r for it, r in zip(items, records, strict=True) if it.unanswerable]
    latencies = [r["timings"]["total"] for r in records]
    return {
        "questions": len(items),
        "hit@1": _rate(ranks, 1, n),
        "hit@3": _rate(ranks, 3, n),
        "hit@5": _rate(ranks, 5, n),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3) if n else None,
        "manual_accuracy": round(
            sum(bool(r["score"]["document_correct"]) for _, r in answerable) / n, 3
        )
        if n
        else None,
        "key_fact_recall": round(
            sum(r["score"]["facts_found"] for _, r in answerable) / facts_total, 3
        )
        if facts_total
        else None,
        "abstention_accuracy": round(sum(r["abstained"] for r in unans) / len(unans), 3)
        if unans
        else None,
        "false_abstentions": sum(r["abstained"] for _, r in answerable),
        "judge_mean": _mean([r["judge"]["score"] for r in records if r.get("judge")]),
        "latency_p50_s": _pct(latencies, 50),
        "latency_p95_s": _pct(latencies, 95),
    }


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
