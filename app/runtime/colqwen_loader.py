"""Which ColQwen backend runs a model: kept apart from ``colqwen`` (the types and helpers
both backends import), so the backends and their chooser import in one direction only."""

from __future__ import annotations

from pathlib import Path

from app.runtime.colqwen import (
    BackendName,
    ColQwenBackend,
    ColQwenOptions,
    adapter_base,
    choose_backend,
    resolve_model_path,
)


def load_colqwen(
    spec: str,
    *,
    backend: BackendName = "auto",
    options: ColQwenOptions | None = None,
    models_dir: Path | None = None,
) -> ColQwenBackend:
    """A lazy backend for the model ``spec`` (nothing is loaded until first use).

    A LoRA adapter folder (what vidore publishes) goes to torch even on a Mac: mlx-vlm
    loads only merged checkpoints (see ``colqwen_mlx``).
    """
    options = options or ColQwenOptions()
    path = resolve_model_path(spec, models_dir)
    which = choose_backend(backend)
    if which == "mlx" and path is not None and adapter_base(path) is not None and backend == "auto":
        which = "torch"
    if which == "mlx":
        from app.runtime.colqwen_mlx import MlxColQwen

        return MlxColQwen(spec, path, options)
    from app.runtime.colqwen_torch import TorchColQwen

    return TorchColQwen(spec, path, options, models_dir=models_dir)
