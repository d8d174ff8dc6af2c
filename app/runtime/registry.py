"""The model registry: which local models exist, what they are, and which are loaded.

Models are found in three places, in this order of precedence: the app's models folder
(``Settings.models_dir``, where downloads go), ``<repo>/models`` (development), and the
Hugging Face cache. Each folder's config.json (and a few marker files) tells its kind; the
size of its weight files, its memory estimate (reading folders is ``model_files``; this
module decides what to load). Nothing is loaded until a handle's backend
is first used, and the least recently used idle models are unloaded to keep the total under
the memory budget. Nothing here opens a network connection.
"""

from __future__ import annotations

import gc
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from app.config import REPO_ROOT, Settings
from app.runtime.idle import MemoryUse
from app.runtime.model_files import (
    GB,
    KINDS,
    RUNTIME_OVERHEAD,
    Location,
    ModelInfo,
    ModelKind,
    hf_cache_dir,
    inspect_folder,
    is_model_dir,
    scan_hf_cache,
    scan_models_dir,
)
from app.runtime.types import hub_offline

__all__ = [
    "GB",
    "KINDS",
    "RECOMMENDED",
    "RUNTIME_OVERHEAD",
    "MemoryBudgetError",
    "ModelHandle",
    "ModelInfo",
    "ModelKind",
    "ModelNotFoundError",
    "ModelRegistry",
    "RecommendedModel",
    "is_model_dir",
]


class ModelNotFoundError(LookupError):
    """No local model matches the request; the message says what to download."""


class MemoryBudgetError(RuntimeError):
    """Loading a model would exceed the memory budget even after unloading idle ones."""


@dataclass(frozen=True, slots=True)
class RecommendedModel:
    """A model known to work well on a Mac, offered in the models dialog."""

    repo_id: str
    kind: ModelKind
    purpose: str
    approx_gb: float
    note: str = ""


RECOMMENDED: tuple[RecommendedModel, ...] = (
    RecommendedModel(
        "mlx-community/Qwen2.5-7B-Instruct-4bit", "llm",
        "Answers and agent decisions; best quality for 16 GB Macs and up.", 4.3,
    ),
    RecommendedModel(
        "mlx-community/Qwen2.5-3B-Instruct-4bit", "llm",
        "Answers and agent decisions on 8 GB Macs; faster, a little less careful.", 1.8,
    ),
    RecommendedModel(
        "mlx-community/Qwen2.5-VL-3B-Instruct-4bit", "vlm",
        "Reads page images: wiring diagrams, tables, scanned pages.", 3.1,
    ),
    RecommendedModel(
        "vidore/colqwen2.5-v0.2", "colqwen",
        "Visual page search (finds pages by how they look).", 7.6,
        "a LoRA adapter; also needs vidore/colqwen2.5-base (~7.5 GB)",
    ),
)  # fmt: skip


BackendFactory = Callable[[ModelInfo], Any]


class ModelHandle:
    """One model the registry knows about; its backend is built and loaded on first use.

    Always reach the model through ``handle.backend``: that is what marks it recently used
    and lets the registry make room for it. Backends may expose ``load()``, ``unload()``
    and ``busy`` (a generation is running, so it must not be unloaded).
    """

    def __init__(self, info: ModelInfo, registry: ModelRegistry) -> None:
        self.info = info
        self._registry = registry
        self._backend: Any = None
        self.last_used = 0.0
        """``time.monotonic()`` of the last ``backend``/``load()`` access."""

    @property
    def backend(self) -> Any:
        """The loaded backend (loads it now, unloading idle models if the budget needs it)."""
        return self._registry._acquire(self)

    def load(self) -> Any:
        """Load the model now (if it is not) and return its backend; same as ``backend``."""
        return self._registry._acquire(self)

    @property
    def backend_if_loaded(self) -> Any:
        return self._backend

    @property
    def loaded(self) -> bool:
        return self._backend is not None

    @property
    def busy(self) -> bool:
        return bool(getattr(self._backend, "busy", False))

    def unload(self) -> None:
        """Free the model's memory; the next ``backend`` access loads it again."""
        backend, self._backend = self._backend, None
        if backend is None:
            return
        unload = getattr(backend, "unload", None)
        if callable(unload):
            unload()
        self._registry._release(self)

    def _set_backend(self, backend: Any) -> None:
        self._backend = backend

    def __repr__(self) -> str:
        state = "loaded" if self.loaded else "not loaded"
        return f"<ModelHandle {self.info.id} ({self.info.kind}, {state})>"


class ModelRegistry:
    """Finds local models, hands out lazy handles, and keeps loaded ones within the budget.

    Args:
        settings: Supplies models_dir, memory_budget_gb and the configured llm/vlm/colqwen.
        roots: Folders to scan, with their location label; defaults to the app's models
            folder and ``<repo>/models``.
        hf_cache: The Hugging Face cache to scan; None = the standard place, False = none.
        factories: Backend constructor per kind (``ModelInfo -> backend``).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        roots: Sequence[tuple[Path, Location]] | None = None,
        hf_cache: Path | Literal[False] | None = None,
        factories: Mapping[str, BackendFactory] | None = None,
    ) -> None:
        self.settings = settings or Settings()
        default_roots: list[tuple[Path, Location]] = [
            (self.settings.models_dir, "app"),
            (REPO_ROOT / "models", "repo"),
        ]
        self.roots = list(roots or default_roots)
        self.hf_cache = hf_cache_dir() if hf_cache is None else hf_cache
        self.factories: dict[str, BackendFactory] = {
            **self._default_factories(),
            **(factories or {}),
        }
        self._lock = threading.RLock()
        self._models: list[ModelInfo] | None = None
        self._handles: dict[str, ModelHandle] = {}
        self._loaded: OrderedDict[str, ModelHandle] = OrderedDict()

    @property
    def budget_bytes(self) -> int:
        return int(self.settings.memory_budget_gb * GB)

    def register_backend(self, kind: str, factory: BackendFactory) -> None:
        """Use ``factory`` to build backends of ``kind`` (e.g. a ColQwen or embedder backend)."""
        self.factories[kind] = factory

    def scan(self, refresh: bool = False) -> list[ModelInfo]:
        """All local models, first location winning when an id appears twice."""
        with self._lock:
            if self._models is None or refresh:
                found: dict[str, ModelInfo] = {}
                for info in self._scan_all():
                    found.setdefault(info.id, self._with_fit(info))
                self._models = list(found.values())
            return list(self._models)

    def models(self, kind: ModelKind) -> list[ModelInfo]:
        return [m for m in self.scan() if m.kind == kind]

    def find(self, spec: str) -> ModelInfo | None:
        """The model named by an id ("org/name"), a folder name, or a folder path."""
        models, low = self.scan(), spec.lower()
        matchers: tuple[Callable[[ModelInfo], bool], ...] = (
            lambda m: m.id == spec,
            lambda m: m.id.lower() == low,
            lambda m: m.path.name.lower() in (low, low.replace("/", "--")),
        )
        for matches in matchers:
            for info in models:
                if matches(info):
                    return info
        path = Path(spec).expanduser()
        if is_model_dir(path):
            return self._with_fit(inspect_folder(path.resolve(), path.name, "path"))
        return None

    def get(self, kind_or_id: str) -> ModelHandle:
        """A lazy handle for a kind ("llm", "vlm", ...) or a model id/path; nothing loads yet."""
        info = self._choose(kind_or_id) if kind_or_id in KINDS else self.find(kind_or_id)
        if info is None:
            raise ModelNotFoundError(_not_found_message(kind_or_id))
        with self._lock:
            handle = self._handles.get(str(info.path))
            if handle is None:
                handle = ModelHandle(info, self)
                self._handles[str(info.path)] = handle
            return handle

    def available(self, kind: ModelKind) -> bool:
        """Whether ``get(kind)`` would find a model (the no-LLM mode asks this)."""
        try:
            return self._choose(kind) is not None
        except ModelNotFoundError:
            return False

    def loaded(self) -> list[ModelHandle]:
        """Loaded handles, least recently used first."""
        with self._lock:
            return list(self._loaded.values())

    def loaded_bytes(self) -> int:
        return sum(h.info.memory_bytes for h in self.loaded())

    def unload_idle(self, max_idle_s: float, now: float | None = None) -> list[str]:
        """Unload models unused for ``max_idle_s`` seconds (and not busy); return their ids.

        The worker that owns the models calls this now and then, so a VLM used for one
        question does not hold gigabytes for the rest of the session.
        """
        now = time.monotonic() if now is None else now
        idle = [h for h in self.loaded() if not h.busy and now - h.last_used >= max_idle_s]
        for handle in idle:
            handle.unload()
        return [h.info.id for h in idle]

    def unload_all(self) -> None:
        for handle in self.loaded():
            handle.unload()

    # ---- used by ModelHandle ----
    def _acquire(self, handle: ModelHandle) -> Any:
        """Load ``handle``'s backend if needed, making room first; mark it most recent."""
        with self._lock:
            key = str(handle.info.path)
            if handle.backend_if_loaded is None:
                self._make_room(handle)
                factory = self.factories.get(handle.info.kind)
                if factory is None:
                    raise ModelNotFoundError(f"no backend can run {handle.info.kind} models yet")
                with hub_offline():
                    backend = factory(handle.info)
                    load = getattr(backend, "load", None)
                    if callable(load):
                        load()
                handle._set_backend(backend)
                self._loaded[key] = handle
            self._loaded.move_to_end(key)
            handle.last_used = time.monotonic()
            return handle.backend_if_loaded

    def _release(self, handle: ModelHandle) -> None:
        with self._lock:
            self._loaded.pop(str(handle.info.path), None)
        gc.collect()

    def _make_room(self, incoming: ModelHandle) -> None:
        need = incoming.info.memory_bytes
        if need > self.budget_bytes:
            raise MemoryBudgetError(
                f"{incoming.info.id} needs about {need / GB:.1f} GB; the memory budget is "
                f"{self.settings.memory_budget_gb:.1f} GB (setting memory_budget_gb)"
            )
        for handle in list(self._loaded.values()):
            if self.loaded_bytes() + need <= self.budget_bytes:
                return
            if not handle.busy:
                handle.unload()
        if self.loaded_bytes() + need > self.budget_bytes:
            busy = ", ".join(h.info.id for h in self._loaded.values())
            raise MemoryBudgetError(f"cannot load {incoming.info.id}: {busy} in use")

    def _choose(self, kind: str) -> ModelInfo | None:
        """The configured model of ``kind``, else the best installed one that fits."""
        # Settings.embedder names a bundled model ("minilm"), not a folder: only folders here.
        configured = str(getattr(self.settings, kind, "") or "") if kind != "embedder" else ""
        if configured:
            info = self.find(configured)
            if info is None:
                raise ModelNotFoundError(_not_found_message(configured))
            return info
        candidates = [m for m in self.scan() if m.kind == kind and m.fits]
        order = [r.repo_id for r in RECOMMENDED]
        candidates.sort(
            key=lambda m: (order.index(m.id) if m.id in order else len(order), -m.memory_bytes)
        )
        return candidates[0] if candidates else None

    def _default_factories(self) -> dict[str, BackendFactory]:
        """MLX LLM and VLM backends, and the ColQwen loader; imports stay lazy."""

        def llm(info: ModelInfo) -> Any:
            from app.runtime.llm_mlx import MlxLLM

            return MlxLLM(info.path, model_id=info.id)

        def vlm(info: ModelInfo) -> Any:
            from app.runtime.vlm_mlx import MlxVLM

            return MlxVLM(info.path, model_id=info.id)

        def colqwen(info: ModelInfo) -> Any:
            from app.runtime.colqwen_loader import load_colqwen

            return load_colqwen(str(info.path), models_dir=self.settings.models_dir)

        return {"llm": llm, "vlm": vlm, "colqwen": colqwen}

    def _scan_all(self) -> Iterator[ModelInfo]:
        for root, location in self.roots:
            yield from scan_models_dir(Path(root), location)
        if self.hf_cache:
            yield from scan_hf_cache(Path(self.hf_cache))

    def _with_fit(self, info: ModelInfo) -> ModelInfo:
        return replace(info, fits=info.memory_bytes <= self.budget_bytes)


def _not_found_message(spec: str) -> str:
    if spec in KINDS:
        hints = [r.repo_id for r in RECOMMENDED if r.kind == spec]
        tip = f"; download one with: python -m app models download {hints[0]}" if hints else ""
        return f"no {spec} model is installed{tip}"
    return f"model {spec!r} is not on this machine (models folder, <repo>/models, HF cache)"


_SHARED: dict[tuple[str, float], ModelRegistry] = {}
_SHARED_LOCK = threading.Lock()


def shared_registry(settings: Settings) -> ModelRegistry:
    """One registry per models folder and memory budget in this process, so the worker's
    lanes (the conversation and a benchmark run) share one loaded copy of each model and
    one budget; backends serialise their own generation. The folders are scanned again
    each time, so a model downloaded since is found (loaded models stay loaded)."""
    key = (str(settings.models_dir), settings.memory_budget_gb)
    with _SHARED_LOCK:
        registry = _SHARED.get(key)
        if registry is None:
            registry = _SHARED[key] = ModelRegistry(settings)
        else:
            registry.settings = settings
            registry.scan(refresh=True)
        return registry


def shared_registries() -> list[ModelRegistry]:
    """Every registry ``shared_registry`` handed out in this process (for idle unloading)."""
    with _SHARED_LOCK:
        return list(_SHARED.values())


def memory_use(settings: Settings) -> MemoryUse:
    """The memory budget and what this process's shared registries hold loaded now."""
    loaded = sum(r.loaded_bytes() for r in shared_registries())
    return MemoryUse(int(settings.memory_budget_gb * GB), loaded, settings.idle_unload_minutes)
