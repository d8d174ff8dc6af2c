"""Helpers for agent tests: replies in DSPy's field format, a model scripted per signature,
and checks every run must pass."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

from app.agent.events import Answer, Decision, Done, Event
from app.agent.loop import Tree
from app.runtime.fake import FakeLLM


def decision(
    tool: str, reasoning: str = "because", confidence: float | None = 0.9, **inputs: Any
) -> str:
    """A DecideNextStep reply in DSPy's chat-adapter field format (no confidence field
    when ``confidence`` is None)."""
    return (
        f"[[ ## reasoning ## ]]\n{reasoning}\n\n[[ ## tool ## ]]\n{tool}\n\n"
        f"[[ ## tool_inputs ## ]]\n{json.dumps(inputs)}\n\n{_confidence(confidence)}"
        "[[ ## completed ## ]]"
    )


def answer_reply(text: str, answerable: bool = True, confidence: float | None = 0.9) -> str:
    return (
        f"[[ ## answerable ## ]]\n{answerable}\n\n[[ ## answer ## ]]\n{text}\n\n"
        f"{_confidence(confidence)}[[ ## completed ## ]]"
    )


def route_reply(documents: list[int], hard: bool = False, confidence: float | None = 0.9) -> str:
    """A RouteQuestion reply."""
    return (
        f"[[ ## documents ## ]]\n{json.dumps(documents)}\n\n[[ ## hard ## ]]\n{hard}\n\n"
        f"{_confidence(confidence)}[[ ## completed ## ]]"
    )


def critique_reply(approved: bool, problems: list[str] | None = None) -> str:
    """A CritiqueAnswer reply (deep mode's critic)."""
    return (
        f"[[ ## approved ## ]]\n{approved}\n\n[[ ## problems ## ]]\n"
        f"{json.dumps(problems or [])}\n\n[[ ## completed ## ]]"
    )


def revise_reply(text: str) -> str:
    """A ReviseAnswer reply (deep mode's writer)."""
    return f"[[ ## answer ## ]]\n{text}\n\n[[ ## completed ## ]]"


def _confidence(value: float | None) -> str:
    return "" if value is None else f"[[ ## confidence ## ]]\n{value}\n\n"


def check_reply(grounded: bool, unsupported: list[str] | None = None) -> str:
    return (
        f"[[ ## grounded ## ]]\n{grounded}\n\n[[ ## unsupported_claims ## ]]\n"
        f"{json.dumps(unsupported or [])}\n\n[[ ## completed ## ]]"
    )


Reply = str | Callable[[], str]


class ScriptedModel:
    """A FakeLLM whose reply depends on which signature is asked: decisions, answers and
    grounding checks each come from their own queue, so a test scripts only what it means.
    A reply may be a function (to raise, like a failing model)."""

    def __init__(self) -> None:
        self.decisions: deque[Reply] = deque()
        self.answers: deque[Reply] = deque()
        self.checks: deque[Reply] = deque([check_reply(True)])
        self.routes: deque[Reply] = deque([route_reply([])])
        self.critiques: deque[Reply] = deque()
        self.revisions: deque[Reply] = deque()
        self.llm = FakeLLM(default=self._route)
        self.prompts: dict[str, list[str]] = {
            k: [] for k in ("decide", "answer", "check", "route", "critic", "writer")
        }

    def _route(self, messages: list[dict[str, Any]]) -> str:
        system = messages[0]["content"]
        kind = (
            "decide"
            if "`tool_inputs`" in system
            else "check"
            if "`grounded`" in system
            else "route"
            if "`hard`" in system
            else "critic"
            if "`approved`" in system
            else "writer"
            if "`critique`" in system
            else "answer"
        )
        self.prompts[kind].append("\n".join(m["content"] for m in messages))
        queues = {
            "decide": self.decisions,
            "answer": self.answers,
            "check": self.checks,
            "route": self.routes,
            "critic": self.critiques,
            "writer": self.revisions,
        }
        queue = queues[kind]
        if not queue:
            raise AssertionError(f"no scripted {kind} reply left")
        last = kind in ("check", "route") and len(queue) == 1  # the last one repeats
        reply = queue[0] if last else queue.popleft()
        return reply() if callable(reply) else reply


def run(agent: Tree, question: str, **kwargs: Any) -> list[Event]:
    events = list(agent.ask(question, **kwargs))
    assert isinstance(events[-1], Done), "every run ends with done"
    assert sum(isinstance(e, Done) for e in events) == 1
    return events


def answer_of(events: list[Event]) -> Answer:
    answers = [e for e in events if isinstance(e, Answer)]
    assert len(answers) == 1
    return answers[0]


def decisions(events: list[Event]) -> list[Decision]:
    return [e for e in events if isinstance(e, Decision)]
