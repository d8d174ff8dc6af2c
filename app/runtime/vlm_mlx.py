"""The VLM backend: asks a local vision-language model (mlx-vlm) about page images.

Page renders are large (a 2x render of an A4 page is about 1200 x 1700 px) and a VLM's cost
grows with the pixels it sees, so images are downscaled to a maximum side before the
processor sees them. Tokens stream as the same ``TokenEvent``s the LLM backend yields; one
lock serialises generation, and mlx-vlm is imported only when the model is first used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, cast

from pydantic import BaseModel, ConfigDict, Field

from app.runtime.lazy import MlxFolderModel
from app.runtime.types import (
    Cancel,
    Completion,
    FinishReason,
    GenerationParams,
    Sampling,
    StopFilter,
    TokenEvent,
    cancel_checker,
    join_events,
)

if TYPE_CHECKING:
    from PIL import Image


class MlxVLMOptions(BaseModel):
    """Load-time options of an MLX VLM (validated; unknown keys are an error)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_image_side: int = Field(
        default=1024, ge=64, le=4096, description="Longest image side in pixels after downscaling."
    )
    seed: int | None = Field(default=None, description="Random seed applied before each call.")


def downscale(image: Image.Image | str | Path, max_side: int) -> Image.Image:
    """The image as RGB with its longest side at most ``max_side`` (aspect ratio kept)."""
    from PIL import Image as PILImage

    if not isinstance(image, PILImage.Image):
        with PILImage.open(image) as opened:
            image = opened.convert("RGB")
    image = image.convert("RGB")
    width, height = image.size
    scale = max_side / max(width, height)
    if scale >= 1.0:
        return image
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    return image.resize(size, PILImage.Resampling.LANCZOS)


class MlxVLM(MlxFolderModel):
    """A vision-language model in a local folder, loaded on first use (``path`` also holds
    preprocessor_config.json; ``options``: ``MlxVLMOptions``; see ``MlxFolderModel``)."""

    Options = MlxVLMOptions
    options: MlxVLMOptions
    # Set by _load_weights, cleared by _drop_weights (the class values: not loaded).
    _model: Any = None
    _processor: Any = None
    _config: Any = None

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _drop_weights(self) -> None:
        self._model = self._processor = self._config = None

    def stream(
        self,
        question: str,
        images: Sequence[Image.Image | str | Path],
        *,
        system: str | None = None,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Iterator[TokenEvent]:
        """Stream the model's answer to ``question`` about ``images`` (downscaled first).

        Images are opened and downscaled now, so a missing file fails at the call.
        """
        params = GenerationParams.of(sampling)
        side = self.options.max_image_side
        pictures = [downscale(image, side) for image in images]
        return self._stream(question, pictures, system, params, cancel_checker(cancel))

    def complete(
        self,
        question: str,
        images: Sequence[Image.Image | str | Path],
        *,
        system: str | None = None,
        cancel: Cancel = None,
        **sampling: Unpack[Sampling],
    ) -> Completion:
        """The whole answer at once: a thin join over ``stream``."""
        return join_events(self.stream(question, images, system=system, cancel=cancel, **sampling))

    def _load_weights(self) -> None:
        from mlx_vlm import load
        from mlx_vlm.utils import load_config

        self._model, self._processor = load(str(self.path))
        self._config = load_config(str(self.path))

    def _prompt(self, question: str, count: int, system: str | None) -> str:
        from mlx_vlm.prompt_utils import apply_chat_template

        turns: list[dict[str, str]] = [{"role": "user", "content": question}]
        if system:
            turns.insert(0, {"role": "system", "content": system})
        return str(apply_chat_template(self._processor, self._config, turns, num_images=count))

    def _stream(
        self,
        question: str,
        images: list[Image.Image],
        system: str | None,
        params: GenerationParams,
        cancelled: Callable[[], bool],
    ) -> Iterator[TokenEvent]:
        with self._lock:
            if not self._begin(cancelled):
                yield TokenEvent("", 0, 0.0, "cancelled")
                return
            from mlx_vlm import stream_generate

            results = stream_generate(
                self._model,
                self._processor,
                self._prompt(question, len(images), system),
                image=cast(Any, images) or None,
                max_tokens=params.max_tokens,
                temperature=params.temperature,
                top_p=params.top_p,
            )
            try:
                yield from _events(results, StopFilter(params.stop), cancelled)
            finally:
                results.close()


def _events(
    results: Iterator[Any], stops: StopFilter, cancelled: Callable[[], bool]
) -> Iterator[TokenEvent]:
    """mlx-vlm results as TokenEvents, with stop strings and cancellation between tokens."""
    for result in results:
        text, hit = stops.feed(result.text)
        finish = cast(FinishReason | None, "stop" if hit else result.finish_reason)
        if finish is not None and not hit:
            text += stops.flush()
        counts = (result.generation_tokens, result.generation_tps)
        yield TokenEvent(text, *counts, finish, result.prompt_tokens, result.cached_tokens)
        if finish is not None:
            return
        if cancelled():
            yield TokenEvent(stops.flush(), *counts, "cancelled", result.prompt_tokens)
            return
