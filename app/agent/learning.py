"""What a question leaves behind for learning: its trace's program version, token use and
shadow decisions, the decisions saved in the library, and the critic's verdict as their
first label. None of it may fail a question: a library that cannot be written is logged.
"""

from __future__ import annotations

import hashlib
import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from app.agent.decision_book import DecisionBook, Outcome
from app.agent.shadow import Calibrator

if TYPE_CHECKING:
    from app.agent.arbiter import Arbiter
    from app.agent.budget import TokenTally
    from app.agent.trace import TraceRecorder

log = logging.getLogger(__name__)
NO_LLM_VERSION = "no-llm"


def calibrator(store: Any) -> Calibrator:
    """The calibration of the library's labelled decisions (none when it cannot be read)."""
    try:
        return DecisionBook(store).calibrator()
    except Exception as exc:
        log.warning("cannot read the labelled decisions: %s", exc)
        return Calibrator()


@lru_cache(maxsize=1)
def builtin_version() -> str:
    """The built-in prompts' version: a hash of every signature's instructions and fields,
    so two runs of different code can be told apart even with no saved program."""
    from app.agent import signatures

    parts = []
    for name in sorted(dir(signatures)):
        value = getattr(signatures, name)
        if isinstance(value, type) and hasattr(value, "instructions") and name[0].isupper():
            fields = getattr(value, "fields", {})
            parts.append(f"{name}:{value.instructions}:{','.join(fields)}")
    return "builtin-" + hashlib.sha256("\n".join(parts).encode()).hexdigest()[:8]


def program_label(tree: Any) -> str:
    """The version of the program that answers: a saved version (``v0003``), the built-in
    prompts' hash, or ``no-llm`` (the rules and the extractive answerer)."""
    if tree.policy is None and tree.resources.llm is None:
        return NO_LLM_VERSION
    return tree.program_version or builtin_version()


def close_record(trace: TraceRecorder, arbiter: Arbiter, tally: TokenTally, version: str) -> None:
    """Add the run id, program version, token use and shadow decisions to the trace."""
    trace.record["run_id"] = trace.run_id
    trace.record["program_version"] = version
    trace.record["tokens"] = tally.to_dict()
    trace.record["shadow"] = arbiter.log.to_list()
    if arbiter.route_calls:
        trace.record["route_calls"] = arbiter.route_calls


def critic_outcome(record: dict[str, Any]) -> Outcome | None:
    """The critic's verdict on the answer as an outcome (None when no claim was checked)."""
    for step in reversed(record.get("steps") or []):
        verdict = (step.get("detail") or {}).get("critic")
        if step.get("tool") == "answer" and isinstance(verdict, dict):
            return Outcome("critic", bool(verdict.get("grounded")), detail=verdict)
    return None


def remember(store: Any, trace: TraceRecorder, arbiter: Arbiter, version: str) -> None:
    """Save the question's decisions in the decision book, labelled by the critic."""
    if not arbiter.log.records or store is None:
        return
    answer = trace.record.get("answer") or {}
    book = DecisionBook(store)
    try:
        book.save(
            trace.run_id,
            str(trace.record.get("question") or ""),
            arbiter.log.records,
            answer=str(answer.get("text") or ""),
            abstained=bool(answer.get("abstained")),
            program_version=version,
        )
        outcome = critic_outcome(trace.record)
        if outcome is not None:
            book.label(trace.run_id, outcome)
    except Exception as exc:
        log.warning("cannot record the question's decisions: %s", exc)
