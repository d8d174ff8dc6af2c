"""Model folders on disk: what kind of model a folder holds, how big it is, where folders are.

Pure file reading (config.json, marker files, file sizes), no model library imported: the
registry calls this to list models in the app's models folder, ``<repo>/models`` and the
Hugging Face cache without loading anything.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ModelKind = Literal["llm", "vlm", "colqwen", "embedder", "unknown"]
Location = Literal["app", "repo", "hf-cache", "path"]
KINDS: tuple[ModelKind, ...] = ("llm", "vlm", "colqwen", "embedder")
GB = 1024**3
# Loaded size over weight bytes: activations, KV cache and framework buffers.
RUNTIME_OVERHEAD = 1.2
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".npz", ".gguf", ".pt", ".pth")
ENCODER_TYPES = {
    "bert", "roberta", "xlm-roberta", "mpnet", "distilbert", "nomic_bert", "modernbert",
    "electra", "deberta-v2", "e5", "gte",
}  # fmt: skip
VLM_TYPES = {
    "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "llava", "llava_next", "idefics2", "idefics3",
    "smolvlm", "paligemma", "pixtral", "mllama", "gemma3", "mistral3", "florence2", "phi3_v",
}  # fmt: skip
SENTENCE_MARKERS = (
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
)


@dataclass(frozen=True, slots=True)
class ModelInfo:
    """A model folder on disk, as the registry sees it.

    Attributes:
        id: Hub-style id ("org/name") when known, else the folder name.
        memory_bytes: Estimated memory once loaded (weights x RUNTIME_OVERHEAD).
        quant_bits: Bits per weight when the config declares quantisation, else None.
        base_model: For an adapter folder (ColQwen LoRA), the base model it needs.
        fits: Whether ``memory_bytes`` is within the registry's memory budget.
    """

    id: str
    path: Path
    kind: ModelKind
    model_type: str
    location: Location
    disk_bytes: int
    weight_bytes: int
    memory_bytes: int
    quant_bits: int | None = None
    base_model: str | None = None
    fits: bool = True


# ---- reading one folder ------------------------------------------------------------
def read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def is_model_dir(folder: Path) -> bool:
    return (folder / "config.json").is_file() or (folder / "adapter_config.json").is_file()


def classify(folder: Path, config: Mapping[str, Any]) -> ModelKind:
    """Tell a model's kind from its config and marker files (ColQwen, embedder, VLM, LLM)."""
    model_type = str(config.get("model_type", "")).lower()
    archs = " ".join(config.get("architectures") or []).lower()
    adapter = read_json(folder / "adapter_config.json")
    base = str(adapter.get("base_model_name_or_path", "")).lower()
    if any(k in text for k in ("colqwen", "colpali") for text in (model_type, archs, base)):
        return "colqwen"
    if any((folder / m).is_file() for m in SENTENCE_MARKERS) or (
        model_type in ENCODER_TYPES and "causallm" not in archs
    ):
        return "embedder"
    if "vision_config" in config or model_type in VLM_TYPES:
        return "vlm"
    if "causallm" in archs or "lmheadmodel" in archs or (model_type and not adapter):
        return "llm"
    return "unknown"


def quant_bits(config: Mapping[str, Any]) -> int | None:
    """Bits per weight from MLX's ``quantization`` or HF's ``quantization_config``."""
    for key in ("quantization", "quantization_config"):
        section = config.get(key)
        if isinstance(section, dict):
            if isinstance(section.get("bits"), int):
                return int(section["bits"])
            if section.get("load_in_4bit"):
                return 4
            if section.get("load_in_8bit"):
                return 8
    return None


def weight_bytes(folder: Path) -> int:
    """Bytes of weight files; the safetensors index's total when the weights are absent."""
    total = sum(f.stat().st_size for f in folder.iterdir() if f.name.endswith(WEIGHT_SUFFIXES))
    if total:
        return total
    index = read_json(folder / "model.safetensors.index.json")
    return int((index.get("metadata") or {}).get("total_size", 0))


def disk_bytes(folder: Path) -> int:
    """Bytes on disk, following the HF cache's symlinks to their blobs."""
    total = 0
    for f in folder.rglob("*"):
        # huggingface_hub keeps download metadata in <local_dir>/.cache; not model files
        if f.is_file() and ".cache" not in f.relative_to(folder).parts:
            total += f.stat().st_size
    return total


def inspect_folder(folder: Path, model_id: str, location: Location) -> ModelInfo:
    """Everything the registry needs to know about one model folder (no weights read)."""
    config = read_json(folder / "config.json")
    weights = weight_bytes(folder)
    adapter = read_json(folder / "adapter_config.json")
    return ModelInfo(
        id=model_id,
        path=folder,
        kind=classify(folder, config),
        model_type=str(config.get("model_type", "")),
        location=location,
        disk_bytes=disk_bytes(folder),
        weight_bytes=weights,
        memory_bytes=int(weights * RUNTIME_OVERHEAD),
        quant_bits=quant_bits(config),
        base_model=adapter.get("base_model_name_or_path") or None,
    )


# ---- finding folders -----------------------------------------------------------------
def hf_cache_dir() -> Path:
    """The Hugging Face hub cache, from the same variables huggingface_hub reads."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    home = os.environ.get("HF_HOME") or Path.home() / ".cache" / "huggingface"
    return Path(home).expanduser() / "hub"


def scan_models_dir(root: Path, location: Location) -> Iterator[ModelInfo]:
    """Model folders under ``root``: ``name/``, ``org--name/`` (downloads) or ``org/name/``."""
    for child in _subdirs(root):
        if is_model_dir(child):
            yield inspect_folder(child, child.name.replace("--", "/", 1), location)
            continue
        for grandchild in _subdirs(child):
            if is_model_dir(grandchild):
                yield inspect_folder(grandchild, f"{child.name}/{grandchild.name}", location)


def scan_hf_cache(cache: Path) -> Iterator[ModelInfo]:
    """Snapshots in the HF cache layout ``models--org--name/snapshots/<rev>/``."""
    for repo in _subdirs(cache):
        if not repo.name.startswith("models--"):
            continue
        snapshot = _current_snapshot(repo)
        if snapshot is not None and is_model_dir(snapshot):
            repo_id = repo.name.removeprefix("models--").replace("--", "/", 1)
            yield inspect_folder(snapshot, repo_id, "hf-cache")


def _current_snapshot(repo: Path) -> Path | None:
    ref = repo / "refs" / "main"
    if ref.is_file():
        snapshot = repo / "snapshots" / ref.read_text().strip()
        if snapshot.is_dir():
            return snapshot
    snapshots = sorted(_subdirs(repo / "snapshots"), key=lambda p: p.stat().st_mtime)
    return snapshots[-1] if snapshots else None


def _subdirs(folder: Path) -> list[Path]:
    """Visible subfolders, skipping unfinished downloads (``*.partial``)."""
    if not folder.is_dir():
        return []
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_dir() and not p.name.startswith(".") and not p.name.endswith(".partial")
    )
