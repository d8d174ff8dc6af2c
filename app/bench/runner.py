"""Running a dataset blind: every question goes to the answerer without its ground truth;
only the scoring step and the judge see the answers."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from app.agent.events import Answer, Done, Event, Result
from app.bench.dataset import BenchItem
from app.bench.judge import Judge, KeyFactJudge
from app.bench.metrics import FIGURES, score_record, summarise

AskFn = Callable[[str], Iterator[Event]]


@dataclass(frozen=True, slots=True)
class BenchProgress:
    """One question done; ``record`` is its finished record (answer, score, judge)."""

    done: int
    total: int
    item_id: str
    rank: int | None
    record: dict[str, Any] | None = None


def run_bench(
    items: Sequence[BenchItem],
    ask: AskFn,
    *,
    judge: Judge | None = None,
    should_stop: Callable[[], bool] | None = None,
    on_judged: Callable[[BenchItem, dict[str, Any]], None] | None = None,
) -> Iterator[BenchProgress | dict[str, Any]]:
    """Yields progress per question, then ``{"summary", "records", "stopped"}``.

    ``judge`` defaults to the deterministic key-fact judge. ``should_stop`` is asked before
    each question; once it says yes, the summary covers the questions done so far.
    ``on_judged`` sees each judged record (the judge's outcome labels its decisions).
    """
    judge = judge or KeyFactJudge()
    done_items: list[BenchItem] = []
    records: list[dict[str, Any]] = []
    stopped = False
    for item in items:
        if should_stop is not None and should_stop():
            stopped = True
            break
        record = judge_record(item, ask_blind(item.query, ask), judge)
        if on_judged is not None:
            on_judged(item, record)
        done_items.append(item)
        records.append(record)
        yield BenchProgress(len(records), len(items), item.id, record["score"]["rank"], record)
    summary = summarise(done_items, records)
    summary["judge_method"] = judge.method
    summary["judge_fallbacks"] = sum(r["judge"]["method"] != judge.method for r in records)
    summary["questions_planned"] = len(items)
    yield {"summary": summary, "records": records, "stopped": stopped}


def judge_record(item: BenchItem, record: dict[str, Any], judge: Judge) -> dict[str, Any]:
    """Add the item's id, category and question, its scores and the judge's verdict."""
    record.update(id=item.id, category=item.category, query=item.query)
    record["score"] = score_record(item, record)
    started = time.perf_counter()
    record["judge"] = judge.judge(item, record["answer"], record["abstained"]).to_dict()
    record["timings"]["judge"] = round(time.perf_counter() - started, 4)
    return record


def ask_blind(question: str, ask: AskFn) -> dict[str, Any]:
    """One question through the answerer; the record of design section 4 plus timings."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    answer: Answer | None = None
    run: dict[str, Any] = {}
    for event in ask(question):
        if isinstance(event, Result):
            timings[event.tool] = timings.get(event.tool, 0.0) + event.seconds
        elif isinstance(event, Answer):
            answer = event
        elif isinstance(event, Done):
            run = {"trace": event.trace, "program_version": event.program_version,
                   "tokens": event.tokens}  # fmt: skip
    timings["total"] = round(time.perf_counter() - started, 4)
    if answer is None:
        empty = {"answer": "", "abstained": True, "citations": [], "pages": []}
        return {**empty, "timings": timings, **run}
    return {
        **run,
        "answer": answer.text,
        "abstained": answer.abstained,
        "citations": [asdict(c) for c in answer.citations],
        "pages": [asdict(p) for p in answer.pages],
        "timings": timings,
    }


def format_summary(summary: dict[str, Any]) -> str:
    """The summary as a plain-text table: overall, then one row per category."""
    cols = [key for key, _ in FIGURES]
    heads = [head for _, head in FIGURES]
    rows = [("all", summary), *summary.get("per_category", {}).items()]
    lines = [f"{'category':<14}" + "".join(f"{h:>11}" for h in heads)]
    for name, block in rows:
        cells = ["-" if block.get(c) is None else f"{block[c]}" for c in cols]
        lines.append(f"{name:<14}" + "".join(f"{c:>11}" for c in cells))
    return "\n".join(lines)
