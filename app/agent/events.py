"""The events a question produces, as the CLI (NDJSON) and the window receive them.

Every event is a small frozen dataclass with a ``type``; ``to_json`` gives the wire form
of design section 4: decision, status, result, token, answer, error, done.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class Decision:
    tool: str
    reasoning: str
    inputs: dict[str, Any] = field(default_factory=dict)
    step: int = 0
    source: str = ""  # who decided: "rules", "llm", "auto" (a tool's own trigger), "limit"
    type: Literal["decision"] = "decision"


@dataclass(frozen=True, slots=True)
class Status:
    message: str
    tool: str = ""
    type: Literal["status"] = "status"


@dataclass(frozen=True, slots=True)
class Result:
    tool: str
    summary: str
    objects: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    step: int = 0
    type: Literal["result"] = "result"


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    reset: bool = False  # discard the text streamed so far: the grounding check replaced it
    type: Literal["token"] = "token"


@dataclass(frozen=True, slots=True)
class CitationOut:
    document: str
    title: str
    page: int
    regions: list[list[float]]


@dataclass(frozen=True, slots=True)
class PageOut:
    document: str
    page: int
    score: float


@dataclass(frozen=True, slots=True)
class Answer:
    text: str
    citations: list[CitationOut]
    abstained: bool
    pages: list[PageOut]
    confidence: float = 0.0
    mode: str = "no-llm"
    type: Literal["answer"] = "answer"


@dataclass(frozen=True, slots=True)
class Error:
    message: str
    tool: str = ""
    recoverable: bool = True
    suggestion: str = ""
    step: int = 0
    type: Literal["error"] = "error"


DoneStatus = Literal["finished", "stopped", "failed"]


@dataclass(frozen=True, slots=True)
class Done:
    """The last event of every question; ``status`` says how it ended: "stopped" when the
    technician stopped it, "failed" when an error ended it."""

    seconds: float
    steps: int = 0
    trace: str = ""
    status: DoneStatus = "finished"
    program_version: str = ""  # the prompt program that answered (see app.agent.programs)
    tokens: int = 0  # prompt + generated tokens of the question's model calls
    type: Literal["done"] = "done"


Event = Decision | Status | Result | Token | Answer | Error | Done


def to_json(event: Event) -> dict[str, Any]:
    return asdict(event)


FALLBACK_TOOL = "fallback"
"""The ``tool`` of a Status event saying a model could not load and Lantern runs without it
(search on full text only); the window shows it in the status bar."""
