"""Tiny random models built at test time: a Qwen2 LLM and a Qwen2-VL, as Hugging Face folders.

Why: no model hub is reachable in tests, yet the MLX backends must be exercised end to end
(real tokenizer files, chat templates, safetensors, mlx-lm / mlx-vlm loaders). A few
seconds of CPU build folders that load exactly like real checkpoints. Weights are random,
so tests assert behaviour (streaming, cancellation, caching), never content.
"""

from __future__ import annotations

import json
import os
import random
import string
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

LLM_CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
VLM_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for c in message['content'] %}"
    "{% if c['type'] == 'image' or 'image' in c %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
LLM_SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
VLM_SPECIALS = [
    *LLM_SPECIALS,
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]


def _corpus(lines: int = 4000) -> Iterator[str]:
    words = ["the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "pdf", "page"]
    words += ["manual", "jumper", "terminal", "wire", "voltage", "output", "answer", "model"]
    rnd = random.Random(0)
    words += [
        "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(3, 8)))
        for _ in range(2000)
    ]
    for _ in range(lines):
        yield " ".join(rnd.choice(words) for _ in range(12))


def _train_tokenizer(out: Path, specials: list[str], chat_template: str) -> Any:
    """Train a ~1000-token byte-level BPE offline and save it HF-style with a chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=1000,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(_corpus(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=specials[1:],
    )
    fast.chat_template = chat_template
    fast.save_pretrained(out)
    return fast


def _hoist_rope(config: dict[str, Any]) -> dict[str, Any]:
    """transformers 5 nests rope settings; mlx loaders read them at the root like hub files."""
    rope = config.pop("rope_parameters", None) or {}
    config.setdefault("rope_theta", rope.get("rope_theta", 1000000.0))
    return config


def build_tiny_llm(out: Path) -> Path:
    """A 2-layer random Qwen2 causal LM whose end-of-turn token is never the greedy pick.

    The EOS embedding row is zeroed (embeddings are tied to the output head), so its logit is
    0 while the best other token scores higher: greedy decoding runs to max_tokens, which
    makes streaming, cancellation and caching tests deterministic.
    """
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    out.mkdir(parents=True, exist_ok=True)
    tok = _train_tokenizer(out, LLM_SPECIALS, LLM_CHAT_TEMPLATE)
    torch.manual_seed(0)
    config = Qwen2Config(
        vocab_size=len(tok),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        eos_token_id=tok.eos_token_id,
        bos_token_id=None,
        pad_token_id=tok.pad_token_id,
    )
    model = Qwen2ForCausalLM(config)
    with torch.no_grad():
        embeddings = cast(Any, model.get_input_embeddings())
        embeddings.weight[tok.eos_token_id].zero_()
    model.save_pretrained(out, safe_serialization=True)
    path = out / "config.json"
    path.write_text(json.dumps(_hoist_rope(json.loads(path.read_text()))), encoding="utf-8")
    return out


def build_tiny_vlm(out: Path) -> Path:
    """A random Qwen2-VL with a 2-layer vision tower, saved in the flat hub layout mlx-vlm reads."""
    import torch
    from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

    out.mkdir(parents=True, exist_ok=True)
    fast = _train_tokenizer(out, VLM_SPECIALS, VLM_CHAT_TEMPLATE)
    ids = {t: fast.convert_tokens_to_ids(t) for t in VLM_SPECIALS}
    config = Qwen2VLConfig(
        text_config={
            "vocab_size": len(fast),
            "hidden_size": 64,
            "intermediate_size": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "num_key_value_heads": 2,
            "max_position_embeddings": 4096,
            # mrope sections sum to head_dim / 2 = 8
            "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
            "tie_word_embeddings": True,
            "eos_token_id": ids["<|im_end|>"],
        },
        vision_config={
            "depth": 2,
            "embed_dim": 32,
            "hidden_size": 64,
            "num_heads": 2,
            "mlp_ratio": 2,
            "patch_size": 14,
            "spatial_merge_size": 2,
            "temporal_patch_size": 2,
            "in_channels": 3,
        },
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    Qwen2VLForConditionalGeneration(config).save_pretrained(out, safe_serialization=True)
    _write_image_processor(out)
    _flatten_vlm_config(out / "config.json")
    return out


def _write_image_processor(out: Path) -> None:
    """What Qwen2VLImageProcessor writes, with a small pixel budget to keep tests fast."""
    config = {
        "image_processor_type": "Qwen2VLImageProcessor",
        "processor_class": "Qwen2VLProcessor",
        "patch_size": 14,
        "temporal_patch_size": 2,
        "merge_size": 2,
        "min_pixels": 56 * 56,
        "max_pixels": 224 * 224,
        "image_mean": [0.48145466, 0.4578275, 0.40821073],
        "image_std": [0.26862954, 0.26130258, 0.27577711],
        "do_rescale": True,
        "rescale_factor": 1 / 255,
        "do_normalize": True,
        "do_convert_rgb": True,
    }
    (out / "preprocessor_config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")


def _flatten_vlm_config(path: Path) -> None:
    """Rewrite transformers 5's nested config into the flat layout of real Qwen2-VL checkpoints.

    mlx-vlm's qwen2_vl expects text parameters at the root and rope_scaling {type,
    mrope_section}; it also rejects the vision model_type "qwen2_vl_vision".
    """
    config = json.loads(path.read_text())
    text = config.pop("text_config")
    rope = text.pop("rope_parameters", {}) or {}
    flat = {**text, **config, "model_type": "qwen2_vl"}
    flat["rope_theta"] = rope.get("rope_theta", 1000000.0)
    flat["rope_scaling"] = {"type": "mrope", "mrope_section": rope.get("mrope_section", [2, 3, 3])}
    flat.pop("bos_token_id", None)
    flat["vision_config"]["model_type"] = "qwen2_vl"
    path.write_text(json.dumps(flat, indent=1), encoding="utf-8")


def tiny_llm_path(tmp_path_factory: Any) -> Path:
    """The tiny LLM folder, built once per test session (pass pytest's tmp_path_factory)."""
    return _built_once(tmp_path_factory, "tiny-qwen2", build_tiny_llm)


def tiny_vlm_path(tmp_path_factory: Any) -> Path:
    """The tiny VLM folder, built once per test session (pass pytest's tmp_path_factory)."""
    return _built_once(tmp_path_factory, "tiny-qwen2vl", build_tiny_vlm)


def _built_once(tmp_path_factory: Any, name: str, build: Callable[[Path], Path]) -> Path:
    """Build into the session's base temp folder once; later calls find it there.

    Keyed by folder rather than by fixture, so every test module shares one build.
    """
    folder = Path(tmp_path_factory.getbasetemp()) / name
    if not (folder / "config.json").is_file():
        staging = Path(tmp_path_factory.mktemp(f"{name}-build"))
        build(staging)
        os.replace(staging, folder)
    return folder
