"""ColQwen is loaded through the model registry, inside the memory budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app.config import Settings
from app.runtime.colqwen import ColQwenUnavailable, FakeColQwen
from app.runtime.colqwen_registry import RegistryColQwen, colqwen_backend
from app.runtime.registry import ModelRegistry

MB = 1024**2


class LoadedFake(FakeColQwen):
    """The fake model, counting the registry's loads and unloads."""

    loads = 0

    def load(self) -> None:
        LoadedFake.loads += 1


def colqwen_folder(models: Path, weight_mb: int) -> Path:
    folder = models / "tiny-colqwen"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"model_type": "colqwen2_5"}))
    with (folder / "model.safetensors").open("wb") as weights:
        weights.truncate(weight_mb * MB)  # sparse: the size is what the registry reads
    return folder


def registry_for(settings: Settings) -> ModelRegistry:
    def fake(_info: Any) -> LoadedFake:
        return LoadedFake()

    roots = [(settings.models_dir, "app")]
    return ModelRegistry(settings, roots=roots, hf_cache=False, factories={"colqwen": fake})


def test_colqwen_loads_through_the_registry_and_counts_in_its_memory(tmp_path: Path) -> None:
    folder = colqwen_folder(tmp_path / "models", 2)
    settings = Settings(colqwen=str(folder), models_dir=tmp_path / "models")
    registry = registry_for(settings)
    backend = colqwen_backend(settings, registry)
    assert isinstance(backend, RegistryColQwen) and registry.loaded_bytes() == 0
    before = LoadedFake.loads
    backend.embed_images([Image.new("RGB", (32, 32), "white")])
    assert backend.embed_queries(["fuse rating"])[0].shape[1] == 16
    assert LoadedFake.loads == before + 1  # loaded once, on first use
    (handle,) = registry.loaded()
    assert handle.info.kind == "colqwen" and registry.loaded_bytes() >= 2 * MB
    assert registry.unload_idle(0.0) == [handle.info.id] and registry.loaded_bytes() == 0


def test_a_colqwen_over_the_budget_is_unavailable_with_the_reason(tmp_path: Path) -> None:
    folder = colqwen_folder(tmp_path / "models", 2048)
    settings = Settings(colqwen=str(folder), models_dir=tmp_path / "models", memory_budget_gb=1)
    backend = colqwen_backend(settings, registry_for(settings))
    with pytest.raises(ColQwenUnavailable, match="memory budget"):
        backend.embed_queries(["fuse rating"])


def test_a_colqwen_the_registry_cannot_find_says_why(tmp_path: Path) -> None:
    settings = Settings(colqwen="vidore/absent-model", models_dir=tmp_path / "models")
    backend = colqwen_backend(settings, registry_for(settings))
    assert "not on this machine" in backend.available().reason
