"""A BERT encoder in NumPy, for embedding questions without importing torch.

A question is one short text; encoding it is a few small matrix products. Importing torch
and transformers to do them costs seconds on a cold start (most of a command-line
``ask``), so the question path runs the same weights here: safetensors read into NumPy,
the ``tokenizers`` library for word pieces, and the BERT forward pass written out (post-
LayerNorm encoder, exact GELU, mean pooling, L2 normalisation). Vectors equal the torch
model's to float32 precision (``tests/unit/library/test_bert_numpy.py``). Imports, which
embed thousands of chunks, keep the torch backend.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by the Chebyshev fit of erfc in Numerical Recipes (fractional error below
    1.2e-7: float32 precision), since NumPy has no erf and SciPy is a slow import."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = (
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class NumpyBert:
    """Mean-pooled, normalised sentence vectors from a BERT folder (config.json,
    model.safetensors, tokenizer.json), computed with NumPy."""

    def __init__(self, folder: Path, max_length: int = 256) -> None:
        self.folder = folder
        self.max_length = max_length
        self._weights: dict[str, np.ndarray] | None = None
        self._tokenizer: object | None = None
        self._lock = threading.Lock()
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.hidden = int(config["hidden_size"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        if config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"{folder}: only exact-GELU BERT models run in NumPy")

    @staticmethod
    def supports(folder: Path) -> bool:
        """Whether a folder holds a BERT this class can run."""
        try:
            config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return (
            config.get("model_type") == "bert"
            and config.get("hidden_act", "gelu") == "gelu"
            and (folder / "model.safetensors").is_file()
            and (folder / "tokenizer.json").is_file()
        )

    def _load(self) -> None:
        if self._weights is not None:
            return
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        weights = load_file(str(self.folder / "model.safetensors"))
        prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""
        self._weights = {
            k.removeprefix(prefix): v.astype(np.float32, copy=False) for k, v in weights.items()
        }
        tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
        tokenizer.enable_truncation(self.max_length)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self._tokenizer = tokenizer

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            self._load()
            assert self._weights is not None and self._tokenizer is not None
            encodings = self._tokenizer.encode_batch(list(texts))  # type: ignore[attr-defined]
            ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
            mask = np.asarray([e.attention_mask for e in encodings], dtype=np.float32)
            hidden = self._forward(ids, mask)
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=-1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._weights
        assert w is not None
        positions = np.arange(ids.shape[1])
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(
            x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )
        # Padding is masked out of attention as transformers does (the dtype's minimum).
        bias = (1.0 - mask)[:, None, None, :] * np.finfo(np.float32).min
        for layer in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        return x

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        w = self._weights
        assert w is not None
        batch, length, _ = x.shape
        size = self.hidden // self.heads

        def project(name: str) -> np.ndarray:
            out = x @ w[f"{p}attention.self.{name}.weight"].T + w[f"{p}attention.self.{name}.bias"]
            return out.reshape(batch, length, self.heads, size).transpose(0, 2, 1, 3)

        q, k, v = project("query"), project("key"), project("value")
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(size) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.hidden)
        attended = context @ w[f"{p}attention.output.dense.weight"].T
        attended = attended + w[f"{p}attention.output.dense.bias"]
        x = _layer_norm(
            x + attended,
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
            self.eps,
        )
        inner = _gelu(x @ w[f"{p}intermediate.dense.weight"].T + w[f"{p}intermediate.dense.bias"])
        out = inner @ w[f"{p}output.dense.weight"].T + w[f"{p}output.dense.bias"]
        return _layer_norm(
            x + out, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], self.eps
        )
