"""The trace of one question: every step, decision, prompt, output, timing and error.

Written as one JSON file in ``<library>/traces/`` when the run ends (also when it fails
or is cancelled), so the UI timeline and the benchmark read the same record. Writing a
trace never fails a question: an unwritable folder is logged and the path left empty.
"""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.agent.events import Answer, Error
from app.agent.state import Task, Turn

log = logging.getLogger(__name__)
TRACE_VERSION = 1


class TraceRecorder:
    """Collects a run's record as it happens; ``write`` saves it."""

    def __init__(self, question: str, mode: str, history: tuple[Turn, ...] = ()) -> None:
        self.started = time.perf_counter()
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S-%f")
        words = re.findall(r"[a-z0-9]+", question.lower())[:6]
        slug = "-".join(words)[:80]  # one 5,000-letter "word" must not overflow a file name
        self.run_id = f"{stamp}-{slug or 'question'}"  # the trace's file name, without .json
        self.record: dict[str, Any] = {
            "version": TRACE_VERSION,
            "question": question,
            "mode": mode,
            "started_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "history": [asdict(t) for t in history],
            "atlas": "",
            "steps": [],
            "errors": [],
            "answer": None,
            "timings": {},
        }

    def atlas(self, text: str) -> None:
        self.record["atlas"] = text

    def step(
        self,
        task: Task,
        objects: list[dict[str, Any]],
        calls: tuple[dict[str, Any], ...] = (),
        detail: dict[str, Any] | None = None,
    ) -> None:
        """One step: the decision (with the model's prompts and replies, if a model made
        it), what the tool found, how long it took, and the tool's own detail."""
        self.record["steps"].append(
            {
                **asdict(task),
                "objects": objects,
                "decision_calls": list(calls),
                "detail": detail or {},
            }
        )

    def error(self, event: Error) -> None:
        self.record["errors"].append(asdict(event))

    def answer(self, event: Answer) -> None:
        self.record["answer"] = asdict(event)

    def finish(self, external: dict[str, float], status: str = "done") -> float:
        """Close the record: total time, time in search and models, and the rest (the
        loop's own cost). Returns the total seconds."""
        total = time.perf_counter() - self.started
        outside = sum(external.values())
        self.record["status"] = status
        self.record["timings"] = {
            "total": round(total, 4),
            "external": {k: round(v, 4) for k, v in external.items()},
            "loop": round(max(total - outside, 0.0), 4),
        }
        return total

    def write(self, folder: Path | None) -> Path | None:
        """Save the record as ``<folder>/<time>-<question words>.json``; None if it cannot."""
        if folder is None:
            return None
        path = Path(folder) / f"{self.run_id}.json"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(self.record, ensure_ascii=False, indent=1, default=str)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            log.warning("cannot write the trace %s: %s", path, exc)
            return None
        return path


def read_trace(path: Path) -> dict[str, Any]:
    """A trace as written (for the UI timeline and the benchmark)."""
    data: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data
