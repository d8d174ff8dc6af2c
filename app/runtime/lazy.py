"""The lifecycle every model backend shares: weights loaded on first use, one lock that a
load, a generation and an unload each hold, a failed load remembered, a memory estimate.

A backend subclasses ``LazyModel`` and writes only what is its own: ``_load_weights`` (set
its attributes from ``self.path``), ``_drop_weights`` (clear them), ``loaded``, and
``_free_memory`` when its framework keeps a cache (MLX's). The registry reads ``busy`` (a
generation holds the lock, so it must not be unloaded) and ``memory_bytes``.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from app.runtime.model_files import RUNTIME_OVERHEAD, weight_bytes
from app.runtime.types import hub_offline


class LazyModel:
    """Weights that load on first use and can be dropped; see the module docstring."""

    def __init__(self, path: str | Path | None = None, model_id: str | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.model_id = model_id or (self.path.name if self.path is not None else "")
        self._lock = threading.Lock()
        self._error = ""  # why the last load failed; kept so it is not retried on every call

    # ---- what a backend writes --------------------------------------------------------
    @property
    def loaded(self) -> bool:
        raise NotImplementedError

    def _load_weights(self) -> None:
        raise NotImplementedError

    def _drop_weights(self) -> None:
        raise NotImplementedError

    def _free_memory(self) -> None:
        gc.collect()

    # ---- the shared lifecycle ---------------------------------------------------------
    @property
    def busy(self) -> bool:
        """True while a load or a generation holds the model (never unloaded then)."""
        return self._lock.locked()

    @property
    def memory_bytes(self) -> int:
        """Estimated memory once loaded (weights on disk x the runtime's overhead)."""
        if self.path is None or not self.path.is_dir():
            return 0
        return int(weight_bytes(self.path) * RUNTIME_OVERHEAD)

    def load(self) -> None:
        """Load the weights now (otherwise the first call does it)."""
        with self._lock:
            self._ensure_loaded()

    def unload(self) -> None:
        """Drop the weights, returning their memory to the system; the next call reloads."""
        with self._lock:
            self._drop_weights()
            self._free_memory()

    def _ensure_loaded(self) -> None:
        """Load if not loaded; the caller holds ``_lock``. Loading never reaches the network."""
        if not self.loaded:
            with hub_offline():
                self._load_weights()


class MlxFolderModel(LazyModel):
    """A model in a local folder run with MLX: load-time options validated into the
    subclass's ``Options``, and MLX's buffer cache emptied on unload.

    Args:
        path: The model's folder (config.json, weights, tokenizer files).
        options: ``Options`` or a dict validated into one (unknown keys are an error).
        model_id: Name shown in traces; defaults to the folder name.
    """

    Options: ClassVar[type[BaseModel]]
    options: BaseModel

    def __init__(
        self,
        path: str | Path,
        options: BaseModel | dict[str, Any] | None = None,
        *,
        model_id: str | None = None,
    ) -> None:
        super().__init__(path, model_id)
        self.path: Path = Path(path)
        self.options = self.Options.model_validate(options or {})

    def _free_memory(self) -> None:
        import mlx.core as mx

        mx.clear_cache()

    def _begin(self, cancelled: Callable[[], bool]) -> bool:
        """Start a generation (the caller holds ``_lock``): False when it was cancelled
        first; otherwise the model is loaded and MLX seeded when the options set a seed."""
        if cancelled():
            return False
        self._ensure_loaded()
        seed = getattr(self.options, "seed", None)
        if seed is not None:
            import mlx.core as mx

            mx.random.seed(seed)
        return True
