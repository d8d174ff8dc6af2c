"""A scripted answerer for the window's tests: the agent's events with small sleeps.

Named in ``EngineConfig.answerer`` so the worker process builds it instead of the real
answerer. What it does depends on the question's words, because the script must cross
the process boundary: "slow" streams long enough to be stopped, "unknown" abstains.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from app.agent.events import (
    Answer,
    CitationOut,
    Decision,
    Done,
    Error,
    Event,
    PageOut,
    Result,
    Status,
    Token,
)

MANUAL = "Lumen_AX200_Installation_Manual.pdf"
TITLE = "Lumen AX-200 Hybrid Alarm Panel - Installation Manual"
# The AUX+ row of Table 3-1 on page 6, in PDF points (what the real answerer cites).
AUX_REGION = [62.0, 719.82, 533.0, 737.06]
ANSWER = (
    "From the manuals:\n"
    "- Terminal | Function | Rating → AUX+ | Auxiliary power out | 13.8 V DC, 500 mA max [1]\n"
    "\nSources:\n[1] " + TITLE + " p.6"
)
ABSTAIN = "The manuals do not say. I searched for: weather forecast."


def scripted_answerer(library: Any, settings: Any) -> ScriptedAnswerer:
    return ScriptedAnswerer()


class ScriptedAnswerer:
    def ask(
        self,
        question: str,
        history: Sequence[Any] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        started = time.perf_counter()
        slow = "slow" in question
        yield Decision("text_search", "Search the manuals' text.", {"query": question}, 1)
        yield Status("Searching the manuals…", "text_search")
        time.sleep(0.02)
        yield Result("text_search", "2 pages; best Installation Manual p.6", _found(), 0.02)
        yield Error("visual search is not installed", "visual_search", True, "text only")
        yield Decision("answer", "Quote the passages that answer it.", {}, 2)
        abstain = "unknown" in question
        text = ABSTAIN if abstain else ANSWER
        if history:
            cited = ", ".join(label for turn in history for label in turn.sources)
            text = f"(Follow-up to {len(history)} earlier question, citing {cited}.) " + text
        for piece in _pieces(text, repeat=40 if slow else 1):
            if cancel is not None and cancel.is_set():
                return
            time.sleep(0.05 if slow else 0.004)
            yield Token(piece)
        yield _answer(text, abstain)
        yield Done(round(time.perf_counter() - started, 3), steps=2)


def _found() -> list[dict[str, Any]]:
    return [
        {"document": MANUAL, "page": 6, "score": 0.8},
        {"document": MANUAL, "page": 7, "score": 0.7},
    ]


def _pieces(text: str, repeat: int) -> Iterator[str]:
    for _ in range(repeat):
        for start in range(0, len(text), 6):
            yield text[start : start + 6]


def _answer(text: str, abstained: bool) -> Answer:
    citations = [] if abstained else [CitationOut(MANUAL, TITLE, 6, [AUX_REGION])]
    pages = [PageOut(MANUAL, 6, 0.8), PageOut(MANUAL, 7, 0.7)]
    return Answer(text, citations, abstained, pages)
