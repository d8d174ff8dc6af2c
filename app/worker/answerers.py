"""What answers questions inside the worker: a small protocol and its adapters.

The worker only needs ``ask(question, history, cancel)`` yielding agent events, and
optionally ``mode`` / ``llm_choice`` (an ``app.agent.mode.LlmChoice``) for the status bar.
The default is the full agent (``app.agent.service.build_answerer``: LLM mode when a usable
LLM is there, no-LLM mode otherwise); the single-search retrieval answerer is kept as an
alternative. Tests name a scripted answerer instead (see ``EngineConfig.answerer``), so
the window is exercised without any model.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from app.agent.events import Error, Event
from app.agent.mode import LlmChoice
from app.agent.turn import Turn
from app.config import Settings
from app.library.library import Library


class Answerer(Protocol):
    def ask(
        self,
        question: str,
        history: Sequence[Turn] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]: ...


AnswererFactory = Callable[[Library, Settings], Answerer]


class RetrievalAdapter:
    """RetrievalAnswerer behind the Answerer protocol: it has no history and no cancel flag,
    so cancelling is checked between its events."""

    def __init__(self, library: Library, settings: Settings) -> None:
        from app.agent.retrieval_mode import RetrievalAnswerer
        from app.library.embedding import make_embedder

        self._answerer = RetrievalAnswerer(library.store, make_embedder(settings.embedder))

    def ask(
        self,
        question: str,
        history: Sequence[Turn] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        for event in self._answerer.ask(question):
            if cancel is not None and cancel.is_set():
                return
            yield event


def retrieval_answerer(library: Library, settings: Settings) -> Answerer:
    return RetrievalAdapter(library, settings)


class AgentAdapter:
    """The agent's decision loop behind the Answerer protocol."""

    def __init__(self, library: Library, settings: Settings) -> None:
        from app.agent.service import build_answerer
        from app.runtime.registry import shared_registry

        # Every lane's agent draws on one registry: a benchmark run and the conversation
        # use the same loaded model instead of two copies.
        self._tree = build_answerer(library, settings, registry=shared_registry(settings))
        self.mode: str = self._tree.mode
        self.llm_choice: LlmChoice = self._tree.llm_choice

    def ask(
        self,
        question: str,
        history: Sequence[Turn] | None = None,
        cancel: threading.Event | None = None,
    ) -> Iterator[Event]:
        return self._tree.ask(question, list(history or ()), cancel)


def agent_answerer(library: Library, settings: Settings) -> Answerer:
    return AgentAdapter(library, settings)


def load_factory(spec: str) -> AnswererFactory:
    """The factory named ``"package.module:function"``."""
    module_name, _, attr = spec.partition(":")
    factory: Any = getattr(importlib.import_module(module_name), attr)
    return factory  # type: ignore[no-any-return]


def failed_answer(message: str) -> Iterator[Event]:
    """What a question yields when its answerer cannot even start."""
    yield Error(message, tool="answer", recoverable=False)
