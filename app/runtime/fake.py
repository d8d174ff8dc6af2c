"""A scripted fake LLM for tests: ``enqueue([...])`` canned replies, streamed token by token.

It behaves like ``MlxLLM`` from the caller's side (same ``stream``/``complete`` signatures,
same events, stop strings, max_tokens and cancellation), so the agent, the DSPy bridge and
the UI can be tested without a model. Every call is recorded for assertions.
"""

from __future__ import annotations

import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Unpack

from app.runtime.types import (
    Cancel,
    ChatMessage,
    FinishReason,
    GenerationParams,
    Sampling,
    StopFilter,
    StreamJoin,
    TokenEvent,
    cancel_checker,
)

_TOKEN = re.compile(r"\s*\S+|\s+")
Reply = str | Callable[[list[dict[str, Any]]], str]
"""A canned reply, or a function computing one from the messages (for echo-style fakes)."""


@dataclass(frozen=True, slots=True)
class FakeCall:
    """One recorded call: the messages and validated parameters it was made with."""

    messages: list[dict[str, Any]]
    params: GenerationParams


class FakeLLM(StreamJoin):
    """Scripted LLM: replies come from a queue, in order; an empty queue is an error.

    Args:
        replies: Initial replies (same as calling ``enqueue``).
        model_id: Name reported to callers.
        token_delay: Seconds to sleep per token, to test cancellation and UI streaming.
        default: Reply used when the queue is empty; None makes that an AssertionError.
    """

    def __init__(
        self,
        replies: Iterable[Reply] = (),
        *,
        model_id: str = "fake",
        token_delay: float = 0.0,
        default: Reply | None = None,
    ) -> None:
        self.model_id = model_id
        self.token_delay = token_delay
        self.default = default
        self.calls: list[FakeCall] = []
        self._queue: deque[Reply] = deque(replies)
        self._lock = threading.Lock()

    def enqueue(self, replies: Iterable[Reply]) -> None:
        """Add canned replies; each call consumes the next one."""
        self._queue.extend(replies)

    @property
    def pending(self) -> int:
        """Replies not consumed yet."""
        return len(self._queue)

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Iterator[TokenEvent]:
        """Stream the next canned reply, one word-sized token per event."""
        params = GenerationParams.of(sampling)
        chat = [dict(m) for m in messages]
        self.calls.append(FakeCall(chat, params))
        return self._stream(self._next_reply(chat), params, cancel_checker(cancel))

    def _next_reply(self, messages: list[dict[str, Any]]) -> str:
        if self._queue:
            reply = self._queue.popleft()
        elif self.default is not None:
            reply = self.default
        else:
            raise AssertionError("FakeLLM: no reply enqueued for this call")
        return reply(messages) if callable(reply) else reply

    def _stream(
        self, reply: str, params: GenerationParams, cancelled: Callable[[], bool]
    ) -> Iterator[TokenEvent]:
        tokens = _TOKEN.findall(reply)[: params.max_tokens]
        length_cut = len(_TOKEN.findall(reply)) > params.max_tokens
        stops = StopFilter(params.stop)
        started = time.perf_counter()
        with self._lock:
            for count, token in enumerate(tokens, start=1):
                if cancelled():
                    yield TokenEvent(stops.flush(), count - 1, 0.0, "cancelled")
                    return
                if self.token_delay:
                    time.sleep(self.token_delay)
                text, hit = stops.feed(token)
                tps = count / max(time.perf_counter() - started, 1e-9)
                last = hit or count == len(tokens)
                if last and not hit:
                    text += stops.flush()
                finish: FinishReason = "stop" if hit or not length_cut else "length"
                yield TokenEvent(text, count, tps, finish if last else None)
                if last:
                    return
            yield TokenEvent(stops.flush(), 0, 0.0, "stop")
