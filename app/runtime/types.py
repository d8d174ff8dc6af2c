"""Events and small helpers shared by every text-generating backend (MLX LLM, VLM, fake).

Backends stream small frozen events; a blocking helper joins them. The helpers here keep the
per-token work of every backend identical: stop strings, cancellation and joining behave the
same whether the tokens come from mlx-lm, mlx-vlm or a scripted fake.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypedDict, Unpack, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

FinishReason = Literal["stop", "length", "cancelled"]
ChatMessage = Mapping[str, Any]
"""One chat turn: ``{"role": "system" | "user" | "assistant", "content": str}``."""

Cancel = threading.Event | Callable[[], bool] | None
"""A flag checked between tokens: an Event (set = cancel) or a callable returning True."""


class EmbedderError(Exception):
    """The text embedder cannot be found or loaded (``app.library.embedding`` uses it; it is
    here so the embedder's numpy backend can raise it without importing that module)."""


@dataclass(frozen=True, slots=True)
class TokenEvent:
    """A piece of generated text; the last event of a stream has a ``finish_reason``.

    Attributes:
        text: New text since the previous event (may be empty, e.g. on the last event).
        tokens: Tokens generated so far in this stream.
        tps: Generation speed so far, tokens per second.
        finish_reason: None while streaming; "stop" (end of turn or a stop string),
            "length" (max_tokens reached) or "cancelled" on the last event.
        prompt_tokens: Prompt tokens the model actually processed for this call.
        cached_tokens: Prompt tokens reused from the prompt cache instead of processed.
    """

    text: str
    tokens: int
    tps: float
    finish_reason: FinishReason | None = None
    prompt_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Completion:
    """A whole generation: what ``complete()`` returns after joining a stream."""

    text: str
    tokens: int
    tps: float
    finish_reason: FinishReason
    prompt_tokens: int = 0
    cached_tokens: int = 0


class Sampling(TypedDict, total=False):
    """The sampling keywords of every backend's ``stream`` and ``complete`` (each optional;
    the defaults and limits are ``GenerationParams``'s)."""

    max_tokens: int
    temperature: float
    top_p: float
    stop: Sequence[str]


class GenerationParams(BaseModel):
    """Validated sampling parameters of one call (shared by all text backends)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_tokens: int = Field(default=512, ge=1, le=32768)
    temperature: float = Field(default=0.0, ge=0.0, le=2.0)
    top_p: float = Field(default=1.0, gt=0.0, le=1.0)
    stop: tuple[str, ...] = Field(default=(), max_length=16)

    @classmethod
    def of(cls, sampling: Sampling) -> GenerationParams:
        """The validated parameters of a call's sampling keywords."""
        given: dict[str, Any] = dict(sampling)
        if "stop" in given:
            given["stop"] = tuple(given["stop"])
        return cls.model_validate(given)


@runtime_checkable
class TextBackend(Protocol):
    """What the agent and the DSPy bridge need from an LLM backend."""

    model_id: str

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Iterator[TokenEvent]: ...

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Completion: ...


def cancel_checker(cancel: Cancel) -> Callable[[], bool]:
    """Normalise an Event, a callable or None into a cheap ``() -> bool``."""
    if cancel is None:
        return lambda: False
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel


def join_events(events: Iterable[TokenEvent]) -> Completion:
    """Join a stream of events into one Completion (the blocking form of ``stream``)."""
    parts: list[str] = []
    last: TokenEvent | None = None
    for event in events:
        parts.append(event.text)
        last = event
    if last is None or last.finish_reason is None:
        raise RuntimeError("the stream ended without a final event")
    return Completion(
        text="".join(parts),
        tokens=last.tokens,
        tps=last.tps,
        finish_reason=last.finish_reason,
        prompt_tokens=last.prompt_tokens,
        cached_tokens=last.cached_tokens,
    )


class StopFilter:
    """Cuts streamed text at the first stop string, holding back a possible partial match.

    Text that could be the start of a stop string is withheld until the next piece shows
    whether it is; so no stop string ever reaches the caller, even when split over tokens.
    """

    def __init__(self, stops: Sequence[str]) -> None:
        self.stops = tuple(s for s in stops if s)
        self._pending = ""

    def feed(self, text: str) -> tuple[str, bool]:
        """Return (text safe to emit, whether a stop string was reached)."""
        if not self.stops:
            return text, False
        buffer = self._pending + text
        hits = [i for i in (buffer.find(s) for s in self.stops) if i >= 0]
        if hits:
            self._pending = ""
            return buffer[: min(hits)], True
        hold = self._partial_suffix(buffer)
        self._pending = buffer[len(buffer) - hold :]
        return buffer[: len(buffer) - hold], False

    def flush(self) -> str:
        """Release withheld text at the end of a stream (it was not a stop string)."""
        pending, self._pending = self._pending, ""
        return pending

    def _partial_suffix(self, buffer: str) -> int:
        longest = 0
        for stop in self.stops:
            for size in range(min(len(stop) - 1, len(buffer)), longest, -1):
                if buffer.endswith(stop[:size]):
                    longest = size
                    break
        return longest


@contextmanager
def hub_offline() -> Iterator[None]:
    """Make Hugging Face libraries refuse the network while loading a local model.

    Loading never needs the hub (models are local folders); this guards against a library
    quietly fetching a missing file. huggingface_hub reads HF_HUB_OFFLINE once at import and
    then checks its module constant, so both the environment and the constant are set here,
    and both restored after, which keeps an explicit download possible later in the process.
    """
    from huggingface_hub import constants

    saved_env = {k: os.environ.get(k) for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")}
    saved_constant = constants.HF_HUB_OFFLINE
    os.environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    constants.HF_HUB_OFFLINE = True
    try:
        yield
    finally:
        constants.HF_HUB_OFFLINE = saved_constant
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class StreamJoin:
    """``complete()`` for a chat backend: the thin join over its ``stream()``."""

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Iterator[TokenEvent]:
        raise NotImplementedError

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Completion:
        """The whole reply at once: a thin join over ``stream``."""
        return join_events(self.stream(messages, cancel=cancel, **sampling))
