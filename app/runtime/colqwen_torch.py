"""ColQwen2.5 through colpali-engine and torch: the reference backend.

Used on Linux (and anywhere MLX is not), and on a Mac for vidore's LoRA adapter folders,
which peft can apply to their base model here. Everything heavy is imported on first use.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.runtime.colqwen import (
    Availability,
    ColQwenOptions,
    ColQwenUnavailable,
    LazyColQwen,
    adapter_base,
    missing_weights_reason,
    resolve_model_path,
)

if TYPE_CHECKING:
    pass

_TV_MODULE = "transformers.models.qwen2_vl.image_processing_qwen2_vl"
_PIL_MODULE = "transformers.models.qwen2_vl.image_processing_pil_qwen2_vl"


def torchvision_usable() -> bool:
    """True when torchvision imports (on Linux CI it is deliberately absent)."""
    if importlib.util.find_spec("torchvision") is None:
        return False
    try:
        import torchvision  # noqa: F401
    except Exception:
        return False
    return True


@functools.cache
def install_torchvision_shim() -> bool:
    """Let colpali-engine import without torchvision; True when the shim was needed.

    colpali's processors import ``smart_resize`` from transformers' torchvision-backed
    Qwen2-VL image module; the PIL-backed module defines the same function, so it stands
    in. With torchvision present (macOS) nothing is touched.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if torchvision_usable():
        return False
    import importlib

    sys.modules.setdefault(_TV_MODULE, importlib.import_module(_PIL_MODULE))
    return True


@functools.cache
def _pil_processor_class() -> type:
    from colpali_engine.models import ColQwen2_5_Processor

    class PilColQwen2_5Processor(ColQwen2_5_Processor):  # type: ignore[misc]
        """colpali's processor built from parts; skips the class check that needs torchvision."""

        def check_argument_for_proper_class(self, argument_name: str, argument: Any) -> type:
            return type(argument)

    return PilColQwen2_5Processor


def build_processor(path: Path, options: ColQwenOptions) -> Any:
    """colpali-engine's ColQwen2.5 processor for ``path``, capped at the options' pixel budget."""
    shimmed = install_torchvision_shim()
    if shimmed:
        from transformers import AutoTokenizer
        from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import (
            Qwen2VLImageProcessorPil,
        )

        tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
        image_processor = Qwen2VLImageProcessorPil.from_pretrained(path, local_files_only=True)
        processor = _pil_processor_class()(
            image_processor=image_processor, tokenizer=tokenizer, video_processor=None
        )
    else:
        from colpali_engine.models import ColQwen2_5_Processor

        processor = ColQwen2_5_Processor.from_pretrained(path, local_files_only=True)
    ip = processor.image_processor
    budget = options.max_visual_tokens * (ip.patch_size * ip.merge_size) ** 2
    ip.size["longest_edge"] = min(int(ip.size.get("longest_edge") or budget), budget)
    return processor


def read_torch_config(path: Path) -> Any:
    """The Qwen2.5-VL config of a ColQwen folder.

    ``Qwen2_5_VLConfig.from_pretrained`` on a folder whose model_type is ``colqwen2_5``
    silently builds a wrong text config, so the dict is read with the type forced.
    """
    from transformers import Qwen2_5_VLConfig

    raw = json.loads((path / "config.json").read_text())
    return Qwen2_5_VLConfig.from_dict({**raw, "model_type": "qwen2_5_vl"})


def load_torch_model(path: Path, options: ColQwenOptions, models_dir: Path | None) -> Any:
    """ColQwen2_5 in eval mode from a merged folder, or base + LoRA adapter merged in memory."""
    import torch
    from colpali_engine.models import ColQwen2_5

    base = adapter_base(path)
    weights = path
    if base is not None:
        resolved = resolve_model_path(base, models_dir) if base else None
        if resolved is None:
            raise ColQwenUnavailable(f"adapter {path} needs its base model {base!r}, not found")
        weights = resolved
    dtype = getattr(torch, options.dtype)
    model = ColQwen2_5.from_pretrained(
        weights, config=read_torch_config(weights), dtype=dtype, local_files_only=True
    )
    if base is not None:
        from peft import PeftModel

        model = PeftModel.from_pretrained(model, path, local_files_only=True).merge_and_unload()
    return model.eval()


class TorchColQwen(LazyColQwen):
    """A lazy colpali-engine ColQwen2.5; embeds one page at a time (no padding, low memory)."""

    name = "torch"

    def __init__(
        self,
        spec: str,
        path: Path | None,
        options: ColQwenOptions | None = None,
        *,
        models_dir: Path | None = None,
    ) -> None:
        super().__init__(spec, path, options)
        self.models_dir = models_dir

    def available(self) -> Availability:
        """Cheap check (no import of torch): weights found, packages present, no failed load."""
        reason = self._error or missing_weights_reason(self.spec, self.path)
        needed = ["torch", "colpali_engine"]
        base = adapter_base(self.path) if self.path is not None else None
        if base is not None:
            needed.append("peft")
            if not reason and (not base or resolve_model_path(base, self.models_dir) is None):
                reason = f"adapter {self.path} needs its base model {base!r}, not on this machine"
        missing = [m for m in needed if importlib.util.find_spec(m) is None]
        if not reason and missing:
            reason = f"missing Python packages: {', '.join(missing)}"
        return Availability(not reason, reason)

    def _build(self, path: Path) -> tuple[Any, Any]:
        processor = build_processor(path, self.options)
        return load_torch_model(path, self.options, self.models_dir), processor

    def _vectors(self, model: Any, batch: Any) -> np.ndarray:
        import torch

        with torch.inference_mode():
            emb = model(**batch)[0]
        return np.asarray(emb.float().numpy(), dtype=np.float32)
