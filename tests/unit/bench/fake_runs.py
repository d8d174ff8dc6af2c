"""Helpers for bench tests: items, a scripted answerer, judge replies and finished runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from app.agent.events import Answer, CitationOut, Done, Event, PageOut, Result
from app.bench.dataset import BenchItem, EvidenceRef
from app.bench.runner import run_bench

ITEMS = [
    BenchItem(
        "q1",
        "direct",
        "Which jumper makes PGM output 12 V?",
        "Jumper J3 in position 12V.",
        ("J3", "12 V"),
        (EvidenceRef("Install.pdf", (21,)),),
    ),
    BenchItem(
        "q2",
        "visual",
        "What colour is the fault LED?",
        "The fault LED is amber.",
        ("amber",),
        (EvidenceRef("User.pdf", (4,)),),
    ),
    BenchItem("q3", "unanswerable", "What is the warranty in Peru?", "", (), ()),
]


def answer_for(pages: list[tuple[str, int]], text: str, abstained: bool = False) -> Answer:
    cites = [CitationOut(d, d.removesuffix(".pdf"), p, [[1, 2, 3, 4]]) for d, p in pages[:1]]
    return Answer(
        text, cites, abstained, [PageOut(d, p, 1.0 / i) for i, (d, p) in enumerate(pages, 1)]
    )


class ScriptedAsk:
    """An answerer that replies to each question from a table, and counts questions."""

    def __init__(self, answers: dict[str, Answer]) -> None:
        self.answers = answers
        self.asked: list[str] = []

    def __call__(self, question: str) -> Iterator[Event]:
        self.asked.append(question)
        yield Result("text_search", "found", seconds=0.01)
        yield self.answers[question]
        yield Done(0.01)


def good_answers() -> dict[str, Answer]:
    return {
        ITEMS[0].query: answer_for([("Install.pdf", 21)], "Set jumper J3 to 12 V [1]."),
        ITEMS[1].query: answer_for([("User.pdf", 9), ("User.pdf", 4)], "The LED is red [1]."),
        ITEMS[2].query: answer_for([], "The manuals don't say.", abstained=True),
    }


def finished_run(answers: dict[str, Answer] | None = None) -> dict[str, Any]:
    """A run_bench result over ITEMS, with a meta as a saved run has."""
    *_, result = run_bench(ITEMS, ScriptedAsk(answers or good_answers()))
    assert isinstance(result, dict)
    result["meta"] = {
        "dataset_name": "devset",
        "dataset_path": "/data/devset.json",
        "library_path": "/lib",
        "mode": "no-LLM",
        "judge_method": "key-facts",
        "started": "2025-01-02T10:00:00+00:00",
        "finished": "2025-01-02T10:01:00+00:00",
        "stopped": False,
    }
    return result


def judge_reply(
    score: object,
    reasoning: str = "fine",
    missing: list[str] | None = None,
    incorrect: list[str] | None = None,
) -> str:
    """A JudgeAnswer reply in DSPy's chat-adapter field format."""
    return (
        f"[[ ## reasoning ## ]]\n{reasoning}\n\n"
        f"[[ ## missing_facts ## ]]\n{json.dumps(missing or [])}\n\n"
        f"[[ ## incorrect_facts ## ]]\n{json.dumps(incorrect or [])}\n\n"
        f"[[ ## score ## ]]\n{score}\n\n[[ ## completed ## ]]"
    )
