"""Reading a run's records and summary for the panel: the table's cells, the evidence
pane's Answer, the summary's figures as text. No Qt, so it is tested on its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.agent.events import Answer, CitationOut, PageOut
from app.bench.metrics import METRICS
from app.bench.metrics import format_figure as format_figure

NO_LLM_JUDGE = "key-fact check: no LLM installed"

# The panel's figures, as (key, label, kind) from the metric registry.
FIGURES: tuple[tuple[str, str, str], ...] = tuple(
    (m.key, m.label, m.kind) for m in METRICS if m.card
)


def judge_label(summary: dict[str, Any]) -> str:
    """How the answers were judged, in words."""
    method = summary.get("judge_method")
    if method == "llm":
        fallbacks = summary.get("judge_fallbacks") or 0
        extra = f" ({fallbacks} fell back to the key-fact check)" if fallbacks else ""
        return f"LLM judge{extra}"
    if method == "key-facts":
        return NO_LLM_JUDGE
    return "not judged"


def hit_text(record: dict[str, Any]) -> str:
    """Whether the right page was found and where: "#1", "miss"; for questions the manuals
    do not answer, whether the agent rightly abstained."""
    if record.get("category") == "unanswerable":
        return "abstained ✓" if record.get("abstained") else "answered ✗"
    rank = (record.get("score") or {}).get("rank")
    return f"#{rank}" if rank else "miss"


def hit_sort_key(record: dict[str, Any]) -> float:
    """Best first: rank 1, 2, ...; misses last."""
    if record.get("category") == "unanswerable":
        return 1.0 if record.get("abstained") else 99.0
    rank = (record.get("score") or {}).get("rank")
    return float(rank) if rank else 99.0


def short_document(name: str) -> str:
    """A cited file's name short enough for a cell, keeping what tells manuals apart (the
    product, then the kind): "Lumen_AX200_User_Manual.pdf" gives "Lumen AX200 User",
    "Ademco_685_Digital_Alarm_Receiver.pdf" gives "Ademco 685 Digital"."""
    stem = name.rsplit(".", 1)[0].replace("_", " ")
    return " ".join(stem.split()[:3])


def cited_pages(record: dict[str, Any]) -> str:
    """The cited pages grouped by manual: "Installation Manual p.6, 7"."""
    by_doc: dict[str, list[int]] = {}
    for c in record.get("citations") or ():
        pages = by_doc.setdefault(c["document"], [])
        if c["page"] not in pages:
            pages.append(c["page"])
    return "; ".join(
        f"{short_document(doc)} p.{', '.join(map(str, pages))}" for doc, pages in by_doc.items()
    )


def one_line(text: str) -> str:
    return " ".join(text.split())


def facts_text(record: dict[str, Any]) -> str:
    """The judge's missing and incorrect facts: "missing: 500 mA · wrong: 12 V"."""
    verdict = record.get("judge") or {}
    parts = []
    if verdict.get("missing_facts"):
        parts.append("missing: " + ", ".join(verdict["missing_facts"]))
    if verdict.get("incorrect_facts"):
        parts.append("wrong: " + ", ".join(verdict["incorrect_facts"]))
    return " · ".join(parts)


def judge_score(record: dict[str, Any]) -> int | None:
    verdict = record.get("judge")
    return int(verdict["score"]) if verdict and verdict.get("score") is not None else None


def total_time(record: dict[str, Any]) -> float:
    return float((record.get("timings") or {}).get("total", 0.0))


def record_answer(record: dict[str, Any]) -> Answer:
    """The record as the agent's Answer, so the evidence pane can show it."""
    citations = [
        CitationOut(c["document"], c.get("title", ""), c["page"], [list(r) for r in c["regions"]])
        for c in record.get("citations") or ()
    ]
    pages = [
        PageOut(p["document"], p["page"], p.get("score", 0.0)) for p in record.get("pages") or ()
    ]
    return Answer(record.get("answer", ""), citations, bool(record.get("abstained")), pages)


def latencies(records: Sequence[dict[str, Any]]) -> list[float]:
    return [total_time(r) for r in records]


def category_figures(summary: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per category, the three bars the chart draws (0-1): Hit@3, key-fact recall, judge."""
    figures = {}
    for name, block in (summary.get("per_category") or {}).items():
        judge = block.get("judge_mean")
        figures[name] = {
            "Hit@3": block.get("hit@3"),
            "Key facts": block.get("key_fact_recall"),
            "Judge": judge / 100 if judge is not None else None,
        }
    return figures
