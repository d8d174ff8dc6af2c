"""The benchmark lane's part in learning from use (no Qt): the Learning tab's figures, and
the automatic optimisation when it is due.

After a benchmark run (whose judge labelled the decisions) the lane checks whether an
optimisation is due: with the setting "automatic" it runs it at once, with "offer" it
sends the figures with the optimisation due, and the panel offers it.
"""

from __future__ import annotations

from typing import Any

from app.worker.bench_messages import (
    AutoOptimiseRequest,
    LearningRequest,
    LearningStats,
    OptimizeUpdate,
)


def handle(lane: Any, request: LearningRequest | AutoOptimiseRequest) -> None:
    """Answer a Learning request, or run the optimisation that is due."""
    if isinstance(request, LearningRequest):
        send_stats(lane, request.job)
    else:
        optimise_due(lane, request.job)


def send_stats(lane: Any, job: int, *, running: bool = False) -> dict[str, Any] | None:
    """Send the Learning figures; ``running`` says an automatic optimisation starts now
    (so the window does not start another)."""
    from app.bench.auto_optimize import learning_stats

    try:
        stats = learning_stats(lane.library, lane.settings)
    except Exception as exc:
        lane.send(LearningStats(job, {}, error=f"{type(exc).__name__}: {exc}"))
        return None
    automatic = bool(stats.get("due")) and lane.settings.auto_optimize == "automatic"
    stats["running"] = running and automatic
    lane.send(LearningStats(job, stats))
    return stats


def after_run(lane: Any) -> None:
    """A run labelled decisions: optimise now ("automatic"), or let the panel offer it."""
    stats = send_stats(lane, 0, running=True)
    if stats and stats["running"]:
        optimise_due(lane, 0)


def after_feedback(lane: Any) -> None:
    """Feedback labelled decisions: tell the window when an optimisation is due (it offers
    it, or with the setting "automatic" asks the benchmark lane to run it)."""
    from app.bench.auto_optimize import check_library

    try:
        due = check_library(lane.library, lane.settings)
    except Exception:
        return
    if due is not None:
        send_stats(lane, 0)


def optimise_due(lane: Any, job: int) -> None:
    """Run the due optimisation in this (worker) thread, with progress; report the run."""
    from app.bench.auto_optimize import check_library, run_auto
    from app.worker.lanes import llm_of, plain

    try:
        trigger = check_library(lane.library, lane.settings)
        if trigger is None:
            raise RuntimeError("no optimisation is due now")
        llm = llm_of(lane.answerer())
        if llm is None:
            raise RuntimeError("optimising needs an LLM, and none is installed")
        stop = lane.stop_event(job)
        lane.send(OptimizeUpdate(job, f"optimising {trigger.signature}: {trigger.reason}"))

        def progress(step: Any) -> None:
            total = f"/{step.total}" if step.total else ""
            text = f"{trigger.signature} · {step.stage}: {step.done}{total} {step.message}"
            lane.send(OptimizeUpdate(job, text.strip()))

        record = run_auto(
            lane.library,
            lane.settings,
            trigger,
            backend=llm(),
            progress=progress,
            should_stop=stop.is_set,
        )
    except Exception as exc:
        lane.send(OptimizeUpdate(job, "", True, None, f"{exc}"))
        return
    finally:
        lane.stops.pop(job, None)
    if record.get("kept"):
        lane._answerer = None  # the next question loads the new program
        lane.on_programs_changed()
    lane.send(OptimizeUpdate(job, "finished", True, plain(record)))
    send_stats(lane, job)
