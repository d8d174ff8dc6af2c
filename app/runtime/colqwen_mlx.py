"""ColQwen2.5 through mlx-vlm (``mlx_vlm.models.colqwen2_5``): the backend used on a Mac.

Two things differ from mlx-vlm's stock ``Model.__call__``, both found by comparing with
colpali-engine on the same weights:

* Position ids. The stock forward numbers tokens 0..n; Qwen2.5-VL gives image tokens 3-D
  (time, row, column) mrope positions, so page vectors drift (1e-3 on tiny random weights,
  more on real ones). We run the same steps but feed the ids ``get_rope_index`` computes,
  which ``get_input_embeddings`` already returns.
* Padding. The stock forward ignores the attention mask, so a padded batch differs from
  single inputs; we embed one input at a time, which needs no mask.

Only merged checkpoints load: a LoRA adapter folder (what vidore publishes) is refused
with a reason, and ``load_colqwen`` sends adapters to the torch backend instead.
Preprocessing reuses colpali-engine's processor (numpy out), so both backends tokenise and
resize identically.
"""

from __future__ import annotations

import importlib.util
import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.runtime.colqwen import (
    Availability,
    ColQwenOptions,
    LazyColQwen,
    adapter_base,
    missing_weights_reason,
)

if TYPE_CHECKING:
    pass

_TEXT_FIELDS = (
    "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
    "num_key_value_heads", "rms_norm_eps", "vocab_size", "max_position_embeddings",
)  # fmt: skip


def mlx_config(path: Path) -> dict[str, Any]:
    """config.json shaped the way mlx-vlm's colqwen2_5 reads it.

    mlx-vlm wants the text parameters at the root and ``rope_scaling`` with an mrope
    section, as older checkpoints have; transformers 5 nests them under ``text_config``.
    """
    c = json.loads((path / "config.json").read_text())
    tc = c.get("text_config") or {}
    for key in _TEXT_FIELDS:
        if key not in c and key in tc:
            c[key] = tc[key]
    rope = tc.get("rope_parameters") or tc.get("rope_scaling") or {}
    c.setdefault("rope_theta", rope.get("rope_theta", 1_000_000.0))
    if "mrope_section" not in (c.get("rope_scaling") or {}):
        c["rope_scaling"] = {"type": "mrope", "mrope_section": rope.get("mrope_section")}
    c["model_type"] = "colqwen2_5"
    c.setdefault("embedding_dim", 128)
    c.setdefault("vision_config", {})["model_type"] = "qwen2_5_vl"
    return c


def weight_names(path: Path) -> list[str]:
    """Tensor names in the folder's safetensors files, read from their headers only."""
    names: list[str] = []
    for file in sorted(path.glob("*.safetensors")):
        with file.open("rb") as f:
            (size,) = struct.unpack("<Q", f.read(8))
            names += [k for k in json.loads(f.read(size)) if k != "__metadata__"]
    return names


def _check_folder(path: Path) -> str:
    if adapter_base(path) is not None:
        return (
            f"{path} is a LoRA adapter; MLX needs a merged ColQwen2.5 checkpoint "
            "(e.g. an mlx-community conversion) — or use the torch backend, which merges it"
        )
    if any(n.startswith("language_model.") for n in weight_names(path)):
        return f"{path} uses transformers-5 weight names (language_model.*); MLX needs model.*"
    return ""


class MlxColQwen(LazyColQwen):
    """A lazy mlx-vlm ColQwen2.5 with Qwen2.5-VL's mrope positions, one input at a time."""

    name = "mlx"
    label = "ColQwen (MLX)"

    def __init__(self, spec: str, path: Path | None, options: ColQwenOptions | None = None) -> None:
        super().__init__(spec, path, options)

    def available(self) -> Availability:
        """Cheap check: weights found and merged, packages present, no failed load."""
        reason = self._error or missing_weights_reason(self.spec, self.path)
        if not reason and self.path is not None:
            reason = _check_folder(self.path)
        missing = [m for m in ("mlx", "mlx_vlm", "colpali_engine") if not _has_module(m)]
        if not reason and missing:
            reason = f"missing Python packages: {', '.join(missing)}"
        return Availability(not reason, reason)

    def _build(self, path: Path) -> tuple[Any, Any]:
        import mlx.core as mx
        from mlx_vlm.encoder_loader import load_encoder_model

        from app.runtime.colqwen_torch import build_processor

        processor = build_processor(path, self.options)
        model = load_encoder_model(path, model_remapping={}, config=mlx_config(path))
        if self.options.dtype != "float32":
            model.set_dtype(getattr(mx, self.options.dtype))
        return model, processor

    def _free_memory(self) -> None:
        import mlx.core as mx

        mx.clear_cache()

    def _vectors(self, model: Any, batch: Any) -> np.ndarray:
        """Embeddings of a one-item batch, with the mrope positions colpali-engine uses."""
        import mlx.core as mx

        input_ids = mx.array(batch["input_ids"].numpy())
        kwargs: dict[str, Any] = {"mask": mx.array(batch["attention_mask"].numpy())}
        pixels = None
        if "pixel_values" in batch:
            thw = batch["image_grid_thw"]
            n = int(thw[0, 1] * thw[0, 2])  # colpali pads pixel rows per image: un-pad
            pixels = mx.array(batch["pixel_values"][0, :n].float().numpy())
            kwargs["image_grid_thw"] = mx.array(thw.numpy())
        feats = model.get_input_embeddings(input_ids, pixels, **kwargs)
        hidden = model.language_model.model(
            None, inputs_embeds=feats.inputs_embeds, mask=None, position_ids=feats.position_ids
        )
        proj = model.custom_text_proj(hidden)
        proj = proj / mx.linalg.norm(proj, axis=-1, keepdims=True)
        mx.eval(proj)
        return np.array(proj[0].astype(mx.float32))


def _has_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False
