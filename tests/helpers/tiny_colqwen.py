"""A tiny random ColQwen2.5 folder, built offline at test time, loadable by both backends.

What is written mirrors a real merged ColQwen2.5 checkpoint: legacy weight names
(``model.layers.*``, ``visual.*``, ``custom_text_proj.*``), a config with the text
parameters at the root as older transformers wrote them (mlx-vlm reads those) and the
nested ``text_config`` transformers 5 reads, a byte-level BPE tokenizer with Qwen's
special tokens and a Qwen2-VL image-processor config with a small pixel budget.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path

SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]
MAX_PIXELS = 224 * 224


def _corpus() -> Iterator[str]:
    words = [
        "invoice",
        "total",
        "red",
        "square",
        "blue",
        "page",
        "jumper",
        "output",
        "wiring",
        "relay",
        "fuse",
    ]
    rnd = random.Random(0)
    words += ["".join(rnd.choices(string.ascii_lowercase, k=rnd.randint(3, 7))) for _ in range(800)]
    for _ in range(3000):
        yield " ".join(rnd.choice(words) for _ in range(10))


def build_tokenizer(out: Path):  # type: ignore[no-untyped-def]
    """A ~600-token byte-level BPE with Qwen-VL's special tokens, saved in ``out``."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=SPECIALS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=SPECIALS[1:],
    )
    fast.save_pretrained(out)
    return fast


def _tiny_config(tok):  # type: ignore[no-untyped-def]
    from transformers import Qwen2_5_VLConfig

    ids = {t: tok.convert_tokens_to_ids(t) for t in SPECIALS}
    return Qwen2_5_VLConfig(
        text_config=dict(
            vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
            rms_norm_eps=1e-6, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]},
            tie_word_embeddings=True,
        ),
        vision_config=dict(
            depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64,
            patch_size=14, spatial_merge_size=2, temporal_patch_size=2, window_size=112,
            fullatt_block_indexes=[1], in_channels=3,
        ),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
    )  # fmt: skip


def _write_preprocessor(out: Path) -> None:
    (out / "preprocessor_config.json").write_text(
        json.dumps(
            {
                "image_processor_type": "Qwen2VLImageProcessor",
                "processor_class": "ColQwen2_5_Processor",
                "patch_size": 14,
                "temporal_patch_size": 2,
                "merge_size": 2,
                "min_pixels": 56 * 56,
                "max_pixels": MAX_PIXELS,
                "image_mean": [0.48145466, 0.4578275, 0.40821073],
                "image_std": [0.26862954, 0.26130258, 0.27577711],
                "do_rescale": True,
                "rescale_factor": 1 / 255,
                "do_normalize": True,
                "do_convert_rgb": True,
            }
        )
    )


def _legacy_names(out: Path) -> None:
    """transformers 5 saves ``language_model.*``; checkpoints and mlx-vlm use ``model.*``."""
    from safetensors.torch import load_file, save_file

    file = out / "model.safetensors"
    w = load_file(file)
    renamed = {
        ("model." + k[len("language_model.") :] if k.startswith("language_model.") else k): v
        for k, v in w.items()
    }
    save_file(renamed, file, metadata={"format": "pt"})


def _flatten_config(out: Path) -> None:
    """Add the root-level text fields older checkpoints carry (what mlx-vlm reads)."""
    file = out / "config.json"
    c = json.loads(file.read_text())
    tc = c["text_config"]
    rp = tc.get("rope_parameters") or {}
    for k in (
        "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
        "num_key_value_heads", "rms_norm_eps", "vocab_size", "max_position_embeddings",
    ):  # fmt: skip
        c[k] = tc[k]
    c["rope_theta"] = rp.get("rope_theta", 1e6)
    c["rope_scaling"] = {"type": "mrope", "mrope_section": rp.get("mrope_section", [2, 3, 3])}
    c["model_type"] = "colqwen2_5"
    c["embedding_dim"] = 128
    c["vision_config"]["model_type"] = "qwen2_5_vl"
    file.write_text(json.dumps(c, indent=1))


def build_tiny_colqwen(out: Path, seed: int = 0) -> Path:
    """Write a tiny random ColQwen2.5 into ``out`` (about 2 s) and return ``out``."""
    import torch

    from app.runtime.colqwen_torch import install_torchvision_shim

    install_torchvision_shim()
    from colpali_engine.models import ColQwen2_5

    out.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(out)
    torch.manual_seed(seed)
    model = ColQwen2_5(_tiny_config(tok)).eval()
    with torch.no_grad():  # norms start at 1 and biases at 0: perturb so parity means something
        for p in model.parameters():
            if p.dim() == 1:
                p.add_(0.1 * torch.randn_like(p))
    model.save_pretrained(out, safe_serialization=True)
    _write_preprocessor(out)
    _legacy_names(out)
    _flatten_config(out)
    return out
