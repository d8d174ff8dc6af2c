"""A question's token budget: prompt and generated tokens of every model call, counted.

``TokenTally`` counts what each LLM call of one question used (the tokens the backend
reports; an estimate of four characters a token when it reports none, as a scripted
model does). ``CountedBackend`` wraps the LLM so every call is counted and none may run
past the budget: a call's generation is cut to what is left, and a call whose prompt alone
does not fit raises ``TokenBudgetSpent``. The loop checks ``spent`` before each decision
and then answers with the best it has, without the model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from app.runtime.types import Cancel, ChatMessage, Completion, TokenEvent, join_events

CHARS_PER_TOKEN = 4
# Less than this left for generation, and the question's budget counts as spent: no
# decision or answer fits in a few tokens.
MIN_GENERATION = 32


class TokenBudgetSpent(RuntimeError):
    """A model call would go past the question's token budget."""


@dataclass(slots=True)
class TokenTally:
    """Tokens one question used, against its budget."""

    budget: int
    prompt: int = 0
    generated: int = 0
    calls: int = 0
    active: bool = False  # counting only while a question runs (the judge's calls are free)
    refused: bool = False  # a call's prompt did not fit in what was left
    chars_per_token: float = CHARS_PER_TOKEN  # learnt from the backend's own counts

    @property
    def used(self) -> int:
        return self.prompt + self.generated

    @property
    def left(self) -> int:
        return max(self.budget - self.used, 0)

    @property
    def spent(self) -> bool:
        return self.refused or self.left < MIN_GENERATION

    def reset(self, budget: int | None = None) -> None:
        self.budget = budget if budget is not None else self.budget
        self.prompt = self.generated = self.calls = 0
        self.refused = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "budget": self.budget,
            "prompt": self.prompt,
            "generated": self.generated,
            "used": self.used,
            "calls": self.calls,
            "spent": self.spent,
        }


def prompt_chars(messages: Sequence[ChatMessage]) -> int:
    return sum(len(str(m.get("content") or "")) for m in messages)


def estimate_tokens(
    messages: Sequence[ChatMessage], chars_per_token: float = CHARS_PER_TOKEN
) -> int:
    """A prompt's tokens before the backend has counted them: four characters a token
    until a call of the question's model has said how many it takes, with a tenth more
    for safety (the chat template's own tokens)."""
    return max(1, int(prompt_chars(messages) / chars_per_token * 1.1))


class CountedBackend:
    """An LLM backend whose calls are counted on a tally and kept within its budget."""

    def __init__(self, backend: Any, tally: TokenTally) -> None:
        self.backend = backend
        self.tally = tally
        self.model_id = backend.model_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        cancel: Cancel = None,
    ) -> Iterator[TokenEvent]:
        if not self.tally.active:
            return self.backend.stream(  # type: ignore[no-any-return]
                messages,
                max_tokens=max_tokens,
                temperature=temperature,
                top_p=top_p,
                stop=stop,
                cancel=cancel,
            )
        estimate = estimate_tokens(messages, self.tally.chars_per_token)
        room = self.tally.left - estimate
        if room < MIN_GENERATION:
            self.tally.refused = True
            raise TokenBudgetSpent(
                f"the question's token budget is spent ({self.tally.used} of "
                f"{self.tally.budget} tokens used)"
            )
        events = self.backend.stream(
            messages,
            max_tokens=min(max_tokens, room),
            temperature=temperature,
            top_p=top_p,
            stop=stop,
            cancel=cancel,
        )
        return self._count(events, estimate, prompt_chars(messages))

    def _count(
        self, events: Iterator[TokenEvent], estimate: int, chars: int
    ) -> Iterator[TokenEvent]:
        tally = self.tally
        tally.calls += 1
        generated = 0
        last: TokenEvent | None = None
        try:
            for event in events:
                generated = max(generated, event.tokens)
                last = event
                yield event
        finally:
            reported = (last.prompt_tokens + last.cached_tokens) if last is not None else 0
            tally.prompt += reported or estimate
            if reported and chars:
                tally.chars_per_token = max(chars / reported, 0.5)
            tally.generated += generated

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int = 512,
        temperature: float = 0.0,
        top_p: float = 1.0,
        stop: Sequence[str] = (),
        cancel: Cancel = None,
    ) -> Completion:
        events = self.stream(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=top_p,
            stop=stop,
            cancel=cancel,
        )
        return join_events(events)


def counted(llm: Callable[[], Any], tally: TokenTally) -> Callable[[], Any]:
    """``llm`` (a function returning the loaded backend) with its calls counted on ``tally``."""

    def backend() -> Any:
        return CountedBackend(llm(), tally)

    return backend
