"""ColQwen as a registry model like the LLM and the VLM: loading it goes through the
model registry, so it counts against the memory budget (and may make idle models unload
first), and idle unloading drops it too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.config import Settings
from app.runtime.colqwen import Availability, ColQwenBackend, ColQwenUnavailable, PageEmbedding
from app.runtime.colqwen_loader import load_colqwen
from app.runtime.registry import MemoryBudgetError, ModelHandle, ModelRegistry, shared_registry

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image


class RegistryColQwen:
    """A ColQwen model reached through a registry handle; ``available()`` asks a backend
    that is never loaded, so checking costs nothing."""

    def __init__(self, handle: ModelHandle, probe: ColQwenBackend) -> None:
        self.handle = handle
        self.probe = probe
        self.name = probe.name
        self._error = ""

    def available(self) -> Availability:
        if self._error:
            return Availability(False, self._error)
        return self.probe.available()

    def _backend(self) -> Any:
        try:
            return self.handle.backend
        except ColQwenUnavailable as exc:
            self._error = str(exc)
            raise
        except MemoryBudgetError as exc:  # another model is busy: try again later
            raise ColQwenUnavailable(str(exc)) from exc

    def embed_images(self, images: list[Image.Image]) -> list[PageEmbedding]:
        result: list[PageEmbedding] = self._backend().embed_images(images)
        return result

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        result: list[np.ndarray] = self._backend().embed_queries(texts)
        return result


def colqwen_backend(settings: Settings, registry: ModelRegistry | None = None) -> ColQwenBackend:
    """The configured ColQwen model, loaded through ``registry`` (the process's shared one
    by default) when the registry finds it; otherwise a plain lazy backend, whose
    ``available()`` says why it cannot run."""
    probe = load_colqwen(settings.colqwen, models_dir=settings.models_dir)
    registry = registry or shared_registry(settings)
    info = registry.find(settings.colqwen) if settings.colqwen else None
    if info is None or info.kind != "colqwen":
        return probe
    return RegistryColQwen(registry.get(str(info.path)), probe)
