"""Running a dataset blind: every question goes to the answerer without its ground truth;
only the scoring step sees the answers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.agent.events import Answer, Event, Result
from app.bench.dataset import BenchItem
from app.bench.metrics import score_record, summarise

AskFn = Callable[[str], Iterator[Event]]


@dataclass(frozen=True, slots=True)
class BenchProgress:
    done: int
    total: int
    item_id: str
    rank: int | None


def run_bench(items: Sequence[BenchItem], ask: AskFn) -> Iterator[BenchProgress | dict[str, Any]]:
    """Yields progress per question, then ``{"summary": ..., "records": [...]}``."""
    records = []
    for done, item in enumerate(items, start=1):
        record = ask_blind(item.query, ask)
        record["id"] = item.id
        record["category"] = item.category
        record["score"] = score_record(item, record)
        records.append(record)
        yield BenchProgress(done, len(items), item.id, record["score"]["rank"])
    yield {"summary": summarise(items, records), "records": records}


def ask_blind(question: str, ask: AskFn) -> dict[str, Any]:
    """One question through the answerer; the record of design section 4 plus timings."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    answer: Answer | None = None
    for event in ask(question):
        if isinstance(event, Result):
            timings[event.tool] = timings.get(event.tool, 0.0) + event.seconds
        elif isinstance(event, Answer):
            answer = event
    timings["total"] = round(time.perf_counter() - started, 4)
    if answer is None:
        return {"answer": "", "abstained": True, "citations": [], "pages": [], "timings": timings}
    return {
        "answer": answer.text,
        "abstained": answer.abstained,
        "citations": [asdict(c) for c in answer.citations],
        "pages": [asdict(p) for p in answer.pages],
        "timings": timings,
    }


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table: overall, then one row per category."""
    cols = [
        "questions",
        "hit@1",
        "hit@3",
        "hit@5",
        "mrr",
        "manual_accuracy",
        "key_fact_recall",
        "abstention_accuracy",
        "false_abstentions",
        "latency_p50_s",
        "latency_p95_s",
    ]
    heads = [
        "n",
        "Hit@1",
        "Hit@3",
        "Hit@5",
        "MRR",
        "manual",
        "facts",
        "abstain",
        "false-abst",
        "p50 s",
        "p95 s",
    ]
    rows = [("all", summary), *summary.get("per_category", {}).items()]
    lines = [f"{'category':<14}" + "".join(f"{h:>11}" for h in heads)]
    for name, block in rows:
        cells = ["-" if block.get(c) is None else f"{block[c]}" for c in cols]
        lines.append(f"{name:<14}" + "".join(f"{c:>11}" for c in cells))
    return "\n".join(lines)
