"""The LLM backend: a local model folder run with mlx-lm, streaming small frozen events.

One instance owns one model. Generation is serialised by a lock (one generation thread owns
the model, as in mlx-lm's server); mlx is imported inside methods so that importing Lantern
stays fast and works where MLX is missing. The KV cache of the previous call is kept and
reused when the next prompt starts with the same tokens, which is the common case for the
agent: every decision re-sends the same system prompt and context before a new question.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Unpack, cast

from pydantic import BaseModel, ConfigDict, Field

from app.runtime.lazy import MlxFolderModel
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


class MlxLLMOptions(BaseModel):
    """Load-time options of an MLX LLM (validated; unknown keys are an error)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_cache: bool = Field(
        default=True, description="Reuse the KV cache of a prompt prefix shared with the last call."
    )
    prefill_step_size: int = Field(
        default=512, ge=16, le=8192, description="Prompt tokens per prefill step and cancel check."
    )
    max_kv_size: int | None = Field(
        default=None, ge=128, description="Cap on the KV cache (rotating); None = unbounded."
    )
    seed: int | None = Field(default=None, description="Random seed applied before each call.")


class _GenerationCancelled(Exception):
    """Raised from mlx-lm's prefill progress callback to abandon a long prompt early."""


class PrefixCache:
    """The KV cache left by the last call, with the token ids it holds.

    mlx-lm's cache is a list of per-layer caches that can be trimmed back to a shorter
    prefix; we trim to the longest prefix shared with the next prompt and feed only the rest.
    """

    def __init__(self) -> None:
        self.cache: list[Any] | None = None
        self.tokens: list[int] = []

    def take(self, model: Any, prompt: list[int], options: MlxLLMOptions) -> tuple[list[Any], int]:
        """Return a cache for ``prompt`` and how many leading prompt tokens it already holds."""
        from mlx_lm.models.cache import can_trim_prompt_cache, make_prompt_cache, trim_prompt_cache

        cache, held = self.cache, self.tokens
        self.clear()
        if options.prompt_cache and cache is not None:
            # at least one prompt token must be fed to get the next-token logits
            reuse = min(common_prefix_length(held, prompt), len(prompt) - 1)
            surplus = len(held) - reuse
            trimmed = surplus == 0 or (
                can_trim_prompt_cache(cache) and trim_prompt_cache(cache, surplus) == surplus
            )
            if reuse > 0 and trimmed:
                return cache, reuse
        return make_prompt_cache(model, max_kv_size=options.max_kv_size), 0

    def keep(self, cache: list[Any], tokens: list[int]) -> None:
        """Remember ``cache`` as holding ``tokens``, if its own offsets agree (else drop it)."""
        offsets = {getattr(layer, "offset", None) for layer in cache}
        if offsets == {len(tokens)}:
            self.cache, self.tokens = cache, tokens
        else:
            self.clear()

    def clear(self) -> None:
        self.cache, self.tokens = None, []


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Number of leading items ``a`` and ``b`` share."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


class MlxLLM(StreamJoin, MlxFolderModel):
    """A chat LLM in a local Hugging Face / MLX folder, loaded on first use (``path``,
    ``options``: ``MlxLLMOptions``, ``model_id``: see ``MlxFolderModel``)."""

    Options = MlxLLMOptions
    options: MlxLLMOptions

    def __init__(
        self,
        path: str | Path,
        options: MlxLLMOptions | dict[str, Any] | None = None,
        *,
        model_id: str | None = None,
    ) -> None:
        super().__init__(path, options, model_id=model_id)
        self._model: Any = None
        self._tokenizer: Any = None
        self._prefix = PrefixCache()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _drop_weights(self) -> None:
        self._model = self._tokenizer = None
        self._prefix.clear()

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Iterator[TokenEvent]:
        """Stream the assistant's reply to ``messages`` (chat template applied).

        Parameters are validated now; the model is loaded and the lock taken on the first
        ``next()``. Exhaust or close the iterator: it holds the model until then. The last
        event has a ``finish_reason``; after ``cancel`` is set no more text is produced.
        """
        params = GenerationParams.of(sampling)
        chat = [dict(m) for m in messages]
        return self._stream(chat, params, cancel_checker(cancel))

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Prompt length of ``messages`` in tokens, as the model would see it.

        Needs only the tokenizer, so it does not wait for a running generation (and can be
        called between the events of a stream on the same thread).
        """
        if self._tokenizer is None:
            self.load()
        return len(self._encode([dict(m) for m in messages]))

    def reset_cache(self) -> None:
        """Forget the kept prompt cache (e.g. when the library changes)."""
        with self._lock:
            self._prefix.clear()

    def _load_weights(self) -> None:
        from mlx_lm import load

        loaded = cast(tuple[Any, Any], load(str(self.path)))
        self._model, self._tokenizer = loaded

    def _encode(self, messages: list[dict[str, Any]]) -> list[int]:
        tokenizer = self._tokenizer
        if tokenizer is None:
            raise RuntimeError(f"{self.model_id} was unloaded")
        if getattr(tokenizer, "has_chat_template", False):
            return list(tokenizer.apply_chat_template(messages, add_generation_prompt=True))
        # A base model without a template: a plain transcript still works, if worse.
        text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return list(tokenizer.encode(text))

    def _stream(
        self,
        messages: list[dict[str, Any]],
        params: GenerationParams,
        cancelled: Callable[[], bool],
    ) -> Iterator[TokenEvent]:
        with self._lock:
            if not self._begin(cancelled):
                yield TokenEvent("", 0, 0.0, "cancelled")
                return
            prompt = self._encode(messages)
            cache, reused = self._prefix.take(self._model, prompt, self.options)
            yield from self._generate(prompt, cache, reused, params, cancelled)

    def _generate(
        self,
        prompt: list[int],
        cache: list[Any],
        reused: int,
        params: GenerationParams,
        cancelled: Callable[[], bool],
    ) -> Iterator[TokenEvent]:
        """Run mlx-lm on the uncached part of ``prompt``; keep the cache for the next call."""
        import mlx.core as mx
        from mlx_lm import stream_generate
        from mlx_lm.sample_utils import make_sampler

        def check_prefill(_done: int, _total: int) -> None:
            if cancelled():
                raise _GenerationCancelled

        responses = stream_generate(
            self._model,
            self._tokenizer,
            mx.array(prompt[reused:]),
            max_tokens=params.max_tokens,
            sampler=make_sampler(temp=params.temperature, top_p=_nucleus(params.top_p)),
            prompt_cache=cache,
            prefill_step_size=self.options.prefill_step_size,
            prompt_progress_callback=check_prefill,
        )
        generated: list[int] = []
        try:
            yield from _events(responses, generated, StopFilter(params.stop), reused, cancelled)
        except _GenerationCancelled:
            yield TokenEvent("", 0, 0.0, "cancelled", cached_tokens=reused)
        finally:
            responses.close()
            self._prefix.keep(cache, prompt + generated)


def _nucleus(top_p: float) -> float:
    """mlx-lm spells "no nucleus sampling" as 0.0, callers as 1.0."""
    return 0.0 if top_p >= 1.0 else top_p


def _events(
    responses: Iterator[Any],
    generated: list[int],
    stops: StopFilter,
    reused: int,
    cancelled: Callable[[], bool],
) -> Iterator[TokenEvent]:
    """Turn mlx-lm responses into TokenEvents: stop strings, cancellation, token bookkeeping.

    ``generated`` receives every token the model has consumed, so the caller can record
    exactly what the KV cache holds.
    """
    for resp in responses:
        generated.append(resp.token)
        text, hit = stops.feed(resp.text)
        finish = cast(FinishReason | None, "stop" if hit else resp.finish_reason)
        if finish is not None and not hit:
            text += stops.flush()
        counts = (resp.generation_tokens, resp.generation_tps)
        yield TokenEvent(text, *counts, finish, resp.prompt_tokens, reused)
        if finish is not None:
            return
        if cancelled():
            yield TokenEvent(stops.flush(), *counts, "cancelled", resp.prompt_tokens, reused)
            return
