"""What answers questions inside the worker: a small protocol and today's adapter.

The worker only needs ``ask(question, history, cancel)`` yielding agent events. The full
agent (``app.agent.service``) has that signature; until it is configured, the retrieval
answerer is adapted to it here. Tests name a scripted answerer instead (see
``EngineConfig.answerer``), so the window is exercised without any model.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from app.agent.events import Error, Event
from app.config import Settings
from app.library.library import Library
from app.ui.messages import Turn


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


def load_factory(spec: str) -> AnswererFactory:
    """The factory named ``"package.module:function"``."""
    module_name, _, attr = spec.partition(":")
    factory: Any = getattr(importlib.import_module(module_name), attr)
    return factory  # type: ignore[no-any-return]


def failed_answer(message: str) -> Iterator[Event]:
    """What a question yields when its answerer cannot even start."""
    yield Error(message, tool="answer", recoverable=False)
