"""The model registry on fake model folders: discovery, kinds, sizes, budget and LRU unloading."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, ClassVar

import pytest

from app.config import Settings
from app.runtime.registry import (
    GB,
    MemoryBudgetError,
    ModelInfo,
    ModelNotFoundError,
    ModelRegistry,
)
from tests.helpers.tiny_models import tiny_llm_path

LLAMA = {"model_type": "llama", "architectures": ["LlamaForCausalLM"]}
QWEN_VL = {"model_type": "qwen2_5_vl", "vision_config": {"depth": 2}}
BERT = {"model_type": "bert", "architectures": ["BertModel"]}


def make_model(folder: Path, config: dict | None, weights: int = 1000, **files: Any) -> Path:
    """A model folder with a sparse weight file of ``weights`` bytes (no real weights)."""
    folder.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    with open(folder / "model.safetensors", "wb") as handle:
        handle.truncate(weights)
    for name, content in files.items():
        (folder / name.replace("__", ".")).write_text(json.dumps(content))
    return folder


def make_hf_cache_repo(cache: Path, repo_id: str, config: dict, weights: int) -> Path:
    """The hub cache layout: blobs, snapshots/<rev>/ of symlinks, refs/main."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    blobs, snapshot = repo / "blobs", repo / "snapshots" / "abc123"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (blobs / "cfg").write_text(json.dumps(config))
    with open(blobs / "w", "wb") as handle:
        handle.truncate(weights)
    os.symlink(blobs / "cfg", snapshot / "config.json")
    os.symlink(blobs / "w", snapshot / "model.safetensors")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    return snapshot


def registry_for(tmp_path: Path, budget_gb: float = 12.0, **kwargs: Any) -> ModelRegistry:
    settings = Settings(models_dir=tmp_path / "app-models", memory_budget_gb=budget_gb)
    kwargs.setdefault(
        "roots", [(tmp_path / "app-models", "app"), (tmp_path / "repo-models", "repo")]
    )
    kwargs.setdefault("hf_cache", tmp_path / "hf-cache")
    return ModelRegistry(settings, **kwargs)


def test_finds_and_classifies_models_in_every_place(tmp_path: Path) -> None:
    app, repo = tmp_path / "app-models", tmp_path / "repo-models"
    make_model(
        app / "mlx-community--Qwen2.5-3B-Instruct-4bit", {**LLAMA, "quantization": {"bits": 4}}
    )
    make_model(app / "vidore" / "colqwen2.5-v0.2", None, adapter_config__json={
        "base_model_name_or_path": "vidore/colqwen2.5-base"})  # fmt: skip
    make_model(repo / "SmolLM2-135M-Instruct", LLAMA)
    make_model(repo / "minilm", BERT, modules__json=[])
    make_model(repo / "broken.partial", LLAMA)
    make_hf_cache_repo(
        tmp_path / "hf-cache", "mlx-community/Qwen2.5-VL-3B-Instruct-4bit", QWEN_VL, 5000
    )

    found = {m.id: m for m in registry_for(tmp_path).scan()}

    assert {m: (i.kind, i.location) for m, i in found.items()} == {
        "mlx-community/Qwen2.5-3B-Instruct-4bit": ("llm", "app"),
        "vidore/colqwen2.5-v0.2": ("colqwen", "app"),
        "SmolLM2-135M-Instruct": ("llm", "repo"),
        "minilm": ("embedder", "repo"),
        "mlx-community/Qwen2.5-VL-3B-Instruct-4bit": ("vlm", "hf-cache"),
    }
    assert found["mlx-community/Qwen2.5-3B-Instruct-4bit"].quant_bits == 4
    assert found["vidore/colqwen2.5-v0.2"].base_model == "vidore/colqwen2.5-base"
    vl = found["mlx-community/Qwen2.5-VL-3B-Instruct-4bit"]
    assert vl.weight_bytes == 5000  # through the snapshot's symlinks to the blobs
    assert vl.disk_bytes >= 5000
    assert vl.memory_bytes > vl.weight_bytes


@pytest.mark.parametrize(
    ("config", "kind"),
    [
        ({"model_type": "colqwen2_5", "architectures": ["ColQwen2_5"]}, "colqwen"),
        ({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"]}, "llm"),
        ({"model_type": "qwen2_vl"}, "vlm"),
        ({"model_type": "gemma3", "vision_config": {}}, "vlm"),
        ({"model_type": "xlm-roberta"}, "embedder"),
        ({}, "unknown"),
    ],
)
def test_kind_from_config(tmp_path: Path, config: dict, kind: str) -> None:
    make_model(tmp_path / "app-models" / "m", config)

    assert registry_for(tmp_path).scan()[0].kind == kind


def test_app_folder_wins_over_the_hf_cache_for_the_same_id(tmp_path: Path) -> None:
    make_model(tmp_path / "app-models" / "org--model", LLAMA)
    make_hf_cache_repo(tmp_path / "hf-cache", "org/model", LLAMA, 10)

    (info,) = registry_for(tmp_path).scan()
    assert info.location == "app"


def test_standard_hf_cache_location_from_environment(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / ".cache" / "huggingface"))
    make_hf_cache_repo(tmp_path / ".cache" / "huggingface" / "hub", "org/cached", LLAMA, 10)

    (info,) = registry_for(tmp_path, hf_cache=None).scan()
    assert info.id == "org/cached"
    assert info.disk_bytes > 10  # files under a ".cache" folder still count


def test_fits_budget_flag(tmp_path: Path) -> None:
    make_model(tmp_path / "app-models" / "small", LLAMA, weights=GB // 2)
    make_model(tmp_path / "app-models" / "huge", LLAMA, weights=2 * GB)

    fits = {m.id: m.fits for m in registry_for(tmp_path, budget_gb=1.0).scan()}
    assert fits == {"small": True, "huge": False}


def test_get_by_kind_prefers_the_setting_then_recommended_models(tmp_path: Path) -> None:
    app = tmp_path / "app-models"
    make_model(app / "mlx-community--Qwen2.5-3B-Instruct-4bit", LLAMA)
    make_model(app / "mlx-community--Qwen2.5-7B-Instruct-4bit", LLAMA, weights=2000)
    make_model(app / "my-llm", LLAMA, weights=3000)
    registry = registry_for(tmp_path)

    assert registry.get("llm").info.id == "mlx-community/Qwen2.5-7B-Instruct-4bit"
    registry.settings.llm = "my-llm"
    assert registry.get("llm").info.id == "my-llm"
    assert registry.get("llm") is registry.get("my-llm")
    assert not registry.get("llm").loaded  # nothing loads until the backend is used


def test_embedder_kind_ignores_the_bundled_embedder_setting(tmp_path: Path) -> None:
    make_model(tmp_path / "repo-models" / "bge-small", BERT)
    registry = registry_for(tmp_path)

    assert registry.settings.embedder == "minilm"
    assert registry.get("embedder").info.id == "bge-small"


def test_get_by_id_name_or_path(tmp_path: Path) -> None:
    folder = make_model(tmp_path / "app-models" / "org--Model", LLAMA)
    elsewhere = make_model(tmp_path / "elsewhere" / "loose", LLAMA)
    registry = registry_for(tmp_path)

    assert registry.get("org/Model").info.path == folder
    assert registry.get("org/model").info.path == folder
    assert registry.get("org--Model").info.path == folder
    assert registry.get(str(elsewhere)).info.location == "path"


def test_missing_models_say_what_to_download(tmp_path: Path) -> None:
    registry = registry_for(tmp_path)

    assert not registry.available("vlm")
    with pytest.raises(ModelNotFoundError, match=r"download mlx-community/Qwen2\.5-VL"):
        registry.get("vlm")
    with pytest.raises(ModelNotFoundError, match="not on this machine"):
        registry.get("org/absent")


class CountingBackend:
    """Stands in for a model backend: counts loads and unloads, can be marked busy."""

    loads: ClassVar[list[str]] = []
    unloads: ClassVar[list[str]] = []

    def __init__(self, info: ModelInfo) -> None:
        self.id = info.id
        self.busy = False
        self.offline_during_load = ""

    def load(self) -> None:
        self.offline_during_load = os.environ.get("HF_HUB_OFFLINE", "")
        CountingBackend.loads.append(self.id)

    def unload(self) -> None:
        CountingBackend.unloads.append(self.id)


@pytest.fixture
def budgeted(tmp_path: Path) -> ModelRegistry:
    """Three LLMs of ~0.48 GB loaded size each, in a 1 GB budget: two fit at once."""
    CountingBackend.loads, CountingBackend.unloads = [], []
    for name in ("a", "b", "c"):
        make_model(tmp_path / "app-models" / name, LLAMA, weights=int(0.4 * GB))
    make_model(tmp_path / "app-models" / "huge", LLAMA, weights=2 * GB)
    return registry_for(tmp_path, budget_gb=1.0, factories={"llm": CountingBackend})


def test_lazy_load_on_first_use_offline(budgeted: ModelRegistry, monkeypatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    handle = budgeted.get("a")
    assert CountingBackend.loads == []

    backend = handle.backend
    assert handle.backend is backend
    assert CountingBackend.loads == ["a"]
    assert backend.offline_during_load == "1"
    assert "HF_HUB_OFFLINE" not in os.environ


def test_least_recently_used_idle_model_is_unloaded(budgeted: ModelRegistry) -> None:
    a, b, c = (budgeted.get(n) for n in "abc")
    a.load(), b.load()
    a.load()  # a is now the most recent

    c.load()

    assert CountingBackend.unloads == ["b"]
    assert [h.info.id for h in budgeted.loaded()] == ["a", "c"]
    assert budgeted.loaded_bytes() <= budgeted.budget_bytes


def test_busy_models_are_not_unloaded(budgeted: ModelRegistry) -> None:
    a, b, c = (budgeted.get(n) for n in "abc")
    a.load().busy = True  # a generation is running on a
    b.load()

    c.load().busy = True  # a is least recently used, but busy: b goes
    assert CountingBackend.unloads == ["b"]

    with pytest.raises(MemoryBudgetError, match="in use"):
        b.load()


def test_a_model_bigger_than_the_budget_is_refused(budgeted: ModelRegistry) -> None:
    with pytest.raises(MemoryBudgetError, match="memory_budget_gb"):
        budgeted.get("huge").load()


def test_models_idle_for_too_long_are_unloaded(budgeted: ModelRegistry) -> None:
    a, b = budgeted.get("a"), budgeted.get("b")
    a.load(), b.load()
    later = b.last_used + 600

    b.load().busy = True
    assert budgeted.unload_idle(300, now=later) == ["a"]
    assert [h.info.id for h in budgeted.loaded()] == ["b"]


def test_unload_all(budgeted: ModelRegistry) -> None:
    budgeted.get("a").load()
    budgeted.unload_all()

    assert budgeted.loaded() == []
    assert CountingBackend.unloads == ["a"]


def test_real_llm_through_the_registry(tmp_path: Path, tmp_path_factory) -> None:
    (tmp_path / "repo-models").mkdir()
    os.symlink(tiny_llm_path(tmp_path_factory), tmp_path / "repo-models" / "tiny-qwen2")
    handle = registry_for(tmp_path).get("llm")

    done = handle.backend.complete([{"role": "user", "content": "hi"}], max_tokens=3)

    assert handle.info.id == "tiny-qwen2"
    assert done.tokens == 3
    handle.unload()
    assert not handle.loaded


def test_the_worker_lanes_share_one_registry_per_models_folder(tmp_path: Path) -> None:
    from app.runtime.registry import shared_registry

    one = Settings(models_dir=tmp_path / "a", library_dir=tmp_path / "lib")
    again = Settings(models_dir=tmp_path / "a", library_dir=tmp_path / "other")
    other = Settings(models_dir=tmp_path / "b", library_dir=tmp_path / "lib")
    registry = shared_registry(one)
    assert shared_registry(again) is registry, "same models and budget: same loaded copies"
    assert shared_registry(other) is not registry
    (tmp_path / "a").mkdir()
    assert "new-llm" not in {m.id for m in registry.models("llm")}
    make_model(tmp_path / "a" / "new-llm", LLAMA)
    assert "new-llm" in {m.id for m in shared_registry(one).models("llm")}, "found on next use"


def test_the_idle_unloader_unloads_what_nobody_used(budgeted: ModelRegistry) -> None:
    from app.runtime.idle import IdleUnloader

    a, b = budgeted.get("a"), budgeted.get("b")
    a.load(), b.load()
    a.last_used -= 120  # a: two minutes ago; b: just now
    unloader = IdleUnloader(lambda: [budgeted], idle_minutes=1, check_every=0.05)
    unloader.start()
    try:
        deadline = time.monotonic() + 5
        while CountingBackend.unloads != ["a"] and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        unloader.stop()
    assert CountingBackend.unloads == ["a"]
    assert [h.info.id for h in budgeted.loaded()] == ["b"]


def test_idle_unloading_is_off_at_zero_minutes(budgeted: ModelRegistry) -> None:
    from app.runtime.idle import IdleUnloader

    unloader = IdleUnloader(lambda: [budgeted], idle_minutes=0)
    unloader.start()
    assert unloader._thread is None


def test_the_worker_starts_idle_unloading_from_the_setting(tmp_path: Path) -> None:
    from app.runtime.idle import MemoryUse
    from app.worker.engine import idle_unloader

    settings = Settings(models_dir=tmp_path / "m", library_dir=tmp_path / "l")
    assert idle_unloader(settings).max_idle_s == 600
    quick = settings.model_copy(update={"idle_unload_minutes": 2})
    assert idle_unloader(quick).max_idle_s == 120
    text = MemoryUse(12 * GB, 3 * GB, 2).describe()
    assert "12.0 GB" in text and "3.0 GB" in text and "2 min" in text
