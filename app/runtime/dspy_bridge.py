"""Run DSPy programs on Lantern's local models, in-process: no server, no litellm call.

DSPy 3.4's engine API lets ``dspy.LM(model, engine=...)`` hand each canonical request to an
object with ``complete(Request) -> Response`` and ``stream(Request)``. ``LanternEngine`` is
that object for any Lantern text backend (``MlxLLM``, or ``FakeLLM`` in tests), so
``dspy.Predict(Signature)`` runs on the local model and its tokens can be streamed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from app.runtime.types import Cancel, Completion, TextBackend, TokenEvent, cancel_checker

if TYPE_CHECKING:
    import dspy
    from dspy.lm15 import Request, Response

# litellm (imported by dspy) would otherwise try to download a model price list.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

DEFAULT_MAX_TOKENS = 1024


class GenerationCancelled(Exception):
    """The run was cancelled while the model was answering a DSPy request."""


def request_messages(request: Request) -> list[dict[str, str]]:
    """A DSPy request as plain chat messages (system first); non-text parts are dropped."""
    messages: list[dict[str, str]] = []
    system = request.system
    if system is not None:
        text = (
            system if isinstance(system, str) else "".join(getattr(p, "text", "") for p in system)
        )
        messages.append({"role": "system", "content": text})
    for message in request.messages:
        role = message.role if message.role in ("user", "assistant", "system") else "user"
        messages.append({"role": role, "content": message.text or ""})
    return messages


class LanternEngine:
    """A DSPy 3.4 engine backed by a Lantern text backend.

    Args:
        backend: Any object with the ``TextBackend`` methods (MlxLLM, FakeLLM).
        default_max_tokens: Used when the DSPy request sets no ``max_tokens``.
        cancel: Flag checked between tokens; a cancelled call raises GenerationCancelled
            (a half answer would only fail DSPy's parser).
    """

    def __init__(
        self,
        backend: TextBackend,
        *,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
        cancel: Cancel = None,
    ) -> None:
        self.backend = backend
        self.default_max_tokens = default_max_tokens
        self.cancel = cancel

    def complete(self, request: Request) -> Response:
        """Run the whole request and return DSPy's canonical Response."""
        parts: list[str] = []
        last: TokenEvent | None = None
        for event in self._events(request):
            parts.append(event.text)
            last = event
        assert last is not None and last.finish_reason is not None
        done = Completion(
            "".join(parts), last.tokens, last.tps, last.finish_reason, last.prompt_tokens
        )
        return self._response(done)

    def stream(self, request: Request) -> Iterator[Any]:
        """Stream DSPy events: start, one text delta per token, end with usage."""
        from dspy.lm15 import StreamDeltaEvent, StreamEndEvent, StreamStartEvent, TextDelta

        yield StreamStartEvent(id=None, model=self.backend.model_id)
        last: TokenEvent | None = None
        for event in self._events(request):
            if event.text:
                yield StreamDeltaEvent(delta=TextDelta(text=event.text, part_index=0))
            last = event
        assert last is not None and last.finish_reason is not None
        yield StreamEndEvent(
            finish_reason=_finish(last.finish_reason), usage=_usage(last.prompt_tokens, last.tokens)
        )

    def close(self) -> None:
        """Nothing to close: the backend belongs to the registry, not to DSPy."""

    def _events(self, request: Request) -> Iterator[TokenEvent]:
        config = request.config
        events = self.backend.stream(
            request_messages(request),
            max_tokens=config.max_tokens or self.default_max_tokens,
            temperature=config.temperature if config.temperature is not None else 0.0,
            top_p=config.top_p if config.top_p is not None else 1.0,
            stop=config.stop,
            cancel=cancel_checker(self.cancel),
        )
        for event in events:
            if event.finish_reason == "cancelled":
                raise GenerationCancelled("cancelled while the model was answering")
            yield event

    def _response(self, done: Completion) -> Response:
        from dspy.lm15 import Message, Response, TextPart

        return Response(
            id=None,
            model=self.backend.model_id,
            message=Message.assistant([TextPart(done.text)]),
            finish_reason=_finish(done.finish_reason),
            usage=_usage(done.prompt_tokens, done.tokens),
        )


def _finish(reason: str) -> Any:
    return "length" if reason == "length" else "stop"


def _usage(prompt_tokens: int, output_tokens: int) -> Any:
    from dspy.lm15 import Usage

    return Usage(input_tokens=prompt_tokens, output_tokens=output_tokens)


def make_dspy_lm(
    backend: TextBackend,
    *,
    cancel: Cancel = None,
    default_max_tokens: int = DEFAULT_MAX_TOKENS,
    **lm_kwargs: Any,
) -> dspy.LM:
    """A ``dspy.LM`` whose every call runs on ``backend`` in this process.

    DSPy's response cache is off by default (``cache=False``): a local model is cheap to
    ask again, and a stale cached decision would hide prompt changes during development.
    """
    import dspy

    engine = LanternEngine(backend, default_max_tokens=default_max_tokens, cancel=cancel)
    lm_kwargs.setdefault("cache", False)
    lm_kwargs.setdefault("num_retries", 0)
    return dspy.LM(f"lantern/{backend.model_id}", engine=engine, **lm_kwargs)
