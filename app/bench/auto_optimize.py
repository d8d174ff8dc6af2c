"""Optimise when it is worth it: a check after each labelled outcome, and the run it starts.

``check`` says whether to optimise now: enough decisions labelled since the last run
(``auto_optimize_examples``, 20), enough time since it (``auto_optimize_hours``, 24 h),
and a signature whose LLM accuracy over its rolling window is below the threshold
(``auto_optimize_accuracy``, 0.70) or has fallen since the last run. The weakest such
signature is the one optimised. ``run_auto`` optimises only that signature's program on
the questions that have a ground truth (verified feedback, benchmark datasets already
run), keeps the new program only when it scores better on the held-back share, and
records the run in ``programs/optimisations.json`` (``OptimiseLog``), which the next
check and ``python -m app stats`` read. The window offers it (setting "offer") or runs
it (setting "automatic") in its worker, with the optimiser's progress.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from app.agent.decision_book import DecisionBook, now
from app.agent.shadow import SIGNATURES
from app.bench.rolling import (
    WINDOW,
    Accuracy,
    accuracy_series,
    by_program_version,
    rolling_accuracy,
)

PROGRAM_OF = {"route": "route", "next_step": "decide", "answer": "answer"}
# A fall of this much since the last run counts as "fallen".
FALL = 0.05
LOG_NAME = "optimisations.json"


@dataclass(frozen=True, slots=True)
class Trigger:
    """Why an optimisation is due, and of which signature."""

    signature: str
    reason: str
    new_examples: int
    accuracy: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class OptimiseLog:
    """The record of automatic optimisation runs, in the library's programs folder."""

    def __init__(self, programs_dir: Path) -> None:
        self.path = Path(programs_dir) / LOG_NAME

    def runs(self) -> list[dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return []
        return data if isinstance(data, list) else []

    def last(self) -> dict[str, Any] | None:
        runs = self.runs()
        return runs[-1] if runs else None

    def append(self, run: dict[str, Any]) -> None:
        runs = [*self.runs(), run]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(runs, fh, ensure_ascii=False, indent=1, default=str)
        os.replace(tmp, self.path)


def check(
    book: DecisionBook,
    log: OptimiseLog,
    *,
    min_examples: int = 20,
    accuracy: float = 0.70,
    hours: float = 24.0,
    clock: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> Trigger | None:
    """The optimisation due now, or None (see the module docstring)."""
    last = log.last()
    since = str(last["finished"]) if last else None
    new = book.count_labelled(since)
    if new < min_examples:
        return None
    if last is not None and clock() - _parse(since or "") < timedelta(hours=hours):
        return None
    before = (last or {}).get("accuracy") or {}
    due: list[tuple[float, Accuracy, str]] = []
    for row in rolling_accuracy(book):
        if row.llm is None:
            continue  # nothing the LLM decided was labelled: no program to judge
        fallen = row.signature in before and row.llm < float(before[row.signature]) - FALL
        if row.llm < accuracy:
            due.append((row.llm, row, f"LLM accuracy {row.llm:.2f} is below {accuracy:.2f}"))
        elif fallen:
            was = float(before[row.signature])
            due.append((row.llm, row, f"LLM accuracy fell from {was:.2f} to {row.llm:.2f}"))
    if not due:
        return None
    value, weakest, reason = min(due, key=lambda d: d[0])
    return Trigger(weakest.signature, f"{reason}; {new} new labelled decisions", new, value)


def check_library(
    library: Any, settings: Any, clock: Callable[[], datetime] | None = None
) -> Trigger | None:
    """``check`` with the library's book and log and the settings' thresholds; None when
    the setting is "off"."""
    if settings.auto_optimize == "off":
        return None
    return check(
        DecisionBook(library.store),
        OptimiseLog(library.programs_dir),
        min_examples=settings.auto_optimize_examples,
        accuracy=settings.auto_optimize_accuracy,
        hours=settings.auto_optimize_hours,
        **({"clock": clock} if clock else {}),
    )


def training_items(library: Any) -> list[Any]:
    """Questions with a ground truth: verified feedback, and the items of the benchmark
    datasets already run on this library (each question once)."""
    from app.bench.dataset import DatasetError, load_dataset
    from app.bench.feedback import FeedbackStore
    from app.bench.runs import RunStore, runs_dir

    items = list(FeedbackStore(library.store).training_items())
    seen_paths: set[str] = set()
    try:
        metas = [m for m, *_ in _run_metas(RunStore(runs_dir(library.root)))]
    except Exception:
        metas = []
    for path in metas:
        if path in seen_paths or not Path(path).is_file():
            continue
        seen_paths.add(path)
        try:
            items.extend(load_dataset(Path(path)))
        except DatasetError:
            continue
    unique: dict[str, Any] = {}
    for item in items:
        unique.setdefault(item.query.strip().lower(), item)
    return list(unique.values())


def _run_metas(store: Any) -> list[tuple[str]]:
    return [(str(run.meta.dataset_path),) for run in store.list()]


def run_auto(
    library: Any,
    settings: Any,
    trigger: Trigger,
    *,
    backend: Any,
    items: Sequence[Any] | None = None,
    progress: Callable[[Any], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    embedder: Any = None,
    budget: Any = None,
) -> dict[str, Any]:
    """Optimise ``trigger.signature``'s program, keep it only if it scores better on the
    held-back questions, and record the run; returns the record."""
    from app.bench.optimize import OptimizeError, optimize

    started = now()
    record: dict[str, Any] = {
        "started": started,
        "signature": trigger.signature,
        "program": PROGRAM_OF[trigger.signature],
        "trigger": trigger.to_dict(),
        "accuracy": {r.signature: r.llm for r in rolling_accuracy(DecisionBook(library.store))},
        "labelled": DecisionBook(library.store).count_labelled(),
    }
    items = list(items) if items is not None else training_items(library)
    try:
        report = optimize(
            library, settings, items, backend=backend, progress=progress,
            should_stop=should_stop, embedder=embedder, budget=budget,
            only=(PROGRAM_OF[trigger.signature],), require_gain=True, dataset="auto",
        )  # fmt: skip
    except OptimizeError as exc:
        record.update(finished=now(), error=str(exc), version=None, kept=False)
        OptimiseLog(library.programs_dir).append(record)
        return record
    record.update(
        finished=now(),
        before=report.before,
        after=report.after,
        version=report.version,
        kept=report.version is not None,
        from_version=report.from_version,
        questions=len(items),
        val_ids=list(report.val_ids),
        note=report.note,
        stopped=report.stopped,
    )
    OptimiseLog(library.programs_dir).append(record)
    return record


def _parse(stamp: str) -> datetime:
    try:
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)


def learning_stats(library: Any, settings: Any, window: int = WINDOW) -> dict[str, Any]:
    """Everything the benchmark panel's Learning tab shows, as plain data: each
    signature's rolling accuracy and its series over time, the optimisation runs, the
    optimisation due now (if any), and the saved runs compared by program version."""
    from app.bench.runs import RunStore, runs_dir

    book = DecisionBook(library.store)
    due = check_library(library, settings)
    return {
        "window": window,
        "signatures": [r.to_dict() for r in rolling_accuracy(book, window)],
        "series": {s: [asdict(p) for p in accuracy_series(book, s, window)] for s in SIGNATURES},
        "optimisations": OptimiseLog(library.programs_dir).runs(),
        "due": due.to_dict() if due else None,
        "setting": settings.auto_optimize,
        "versions": by_program_version(RunStore(runs_dir(library.root)).list()),
    }
