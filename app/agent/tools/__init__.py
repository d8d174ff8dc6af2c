"""The agent's tools: what each one needs, what it returns, and the one list of them.

A tool is a class with a ``name``, a docstring (its description for the decision model), a
pydantic ``Inputs`` model, ``is_available(state)``, ``auto_trigger(state)`` and
``__call__(state, inputs)``: a generator that yields Status/Result/Error/Token events and
returns a ToolResult or a ToolError. Tools get their dependencies (store, search, models)
once, as ``Resources``; the per-question state is the one argument of a call.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel

from app.agent.events import Answer, Event
from app.agent.state import Found, TreeData

if TYPE_CHECKING:
    from app.config import Settings
    from app.library.embedding import Embedder
    from app.library.library import Library
    from app.retrieval.text import TextSearch
    from app.retrieval.visual import VisualSearch
    from app.runtime.types import Cancel, TextBackend


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool found: a one-line summary for the next decision, and its objects.

    ``name`` names the result in the environment (a query, a page reference). The answer
    tool sets ``answer``, which ends the loop. ``detail`` goes to the trace (prompts, raw
    model output, the critic's verdict).
    """

    summary: str
    name: str = ""
    objects: tuple[Found, ...] = ()
    answer: Answer | None = None
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ToolError:
    """Why a tool could not do its job, whether trying something else may help, and what."""

    message: str
    recoverable: bool = True
    suggestion: str = ""


Outcome = ToolResult | ToolError
ToolRun = Generator[Event, None, Outcome]


@dataclass(frozen=True, slots=True)
class Available:
    """Whether a tool can run now, and if not, why (truthy when it can)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


class ExternalClock:
    """Time spent in search and model calls, so the loop's own cost can be told apart."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextmanager
    def timing(self, what: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[what] = self.seconds.get(what, 0.0) + time.perf_counter() - start

    def total(self) -> float:
        return sum(self.seconds.values())

    def reset(self) -> None:
        self.seconds = {}


@dataclass(slots=True)
class Resources:
    """What tools work with: the library, its searches and the models (each may be absent).

    ``llm`` and ``vlm`` are functions returning the loaded backend, so a model loads only
    when a tool first needs it (a registry handle's ``backend``).
    """

    library: Library
    embedder: Embedder
    text_search: TextSearch
    settings: Settings
    visual_search: VisualSearch | None = None
    llm: Callable[[], TextBackend] | None = None
    vlm: Callable[[], Any] | None = None
    clock: ExternalClock = field(default_factory=ExternalClock)
    cancel: Cancel = None


class Tool:
    """Base of every tool; subclasses set ``name``, ``Inputs`` and a docstring."""

    name: ClassVar[str] = ""
    Inputs: ClassVar[type[BaseModel]]
    ends_loop: ClassVar[bool] = False
    repeatable: ClassVar[bool] = False  # exempt from the never-twice guard
    trigger: ClassVar[str] = ""  # when ``auto_trigger`` fires, for the timeline

    def __init__(self, resources: Resources) -> None:
        self.resources = resources

    def is_available(self, state: TreeData) -> Available:
        return Available(True)

    def auto_trigger(self, state: TreeData) -> BaseModel | None:
        """Inputs to run with now, unasked, or None (most tools wait to be chosen)."""
        return None

    def run_key(self, inputs: BaseModel) -> str:
        """What makes two runs the same, for the never-twice guard (case and spacing
        do not make a query new)."""
        data = {k: _normal(v) for k, v in inputs.model_dump().items()}
        return json.dumps(data, sort_keys=True, default=str)

    def __call__(self, state: TreeData, inputs: BaseModel) -> ToolRun:
        raise NotImplementedError

    @classmethod
    def description(cls) -> str:
        """The docstring, for the decision model and the trace."""
        return inspect.getdoc(cls) or cls.name

    @classmethod
    def signature_text(cls) -> str:
        """``name(field: type = default -- description, ...)``: the tool as a prompt line."""
        parts = []
        for fname, info in cls.Inputs.model_fields.items():
            kind = getattr(info.annotation, "__name__", str(info.annotation))
            default = "" if info.is_required() else f" = {info.default!r}"
            desc = f" -- {info.description}" if info.description else ""
            parts.append(f"{fname}: {kind}{default}{desc}")
        return f"{cls.name}({'; '.join(parts)})"


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.lower().split())
    if isinstance(value, list | tuple):
        return sorted(_normal(v) for v in value)
    return value
