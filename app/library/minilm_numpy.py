"""all-MiniLM-L6-v2 (any BERT encoder folder) run with numpy alone, for the app bundle.

The packaged Mac app leaves torch out (it is most of a gigabyte and nothing else in the
bundle needs it), so the text embedder there runs the same weights through this small numpy
forward pass: the `tokenizers` library for word pieces, safetensors for the weights, and
plain matrix products. It gives the vectors torch gives (cosine > 0.99999 in the tests), so
a library built with one is searched with the other without re-embedding.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

_SQRT_HALF = np.float32(0.7071067811865476)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf with an absolute error under 1.5e-7 (Abramowitz and Stegun 7.1.26), float32."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return (sign * (1.0 - poly * np.exp(-a * a))).astype(np.float32)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * _SQRT_HALF))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class NumpyBertEmbedder:
    """Mean-pooled, L2-normalised sentence vectors from a BERT folder, without torch."""

    def __init__(self, path: Path, name: str, batch_size: int = 64, max_length: int = 256):
        self.path = path
        self.name = name
        self.batch_size = batch_size
        self.max_length = max_length
        self._weights: dict[str, np.ndarray] | None = None
        self._config: dict[str, Any] = {}
        self._tokenizer: Any = None
        self._pad_id = 0
        self._lock = threading.Lock()

    def _load(self) -> None:
        if self._weights is not None:
            return
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        from app.runtime.types import EmbedderError

        try:
            self._config = json.loads((self.path / "config.json").read_text(encoding="utf-8"))
            weights = load_file(str(self.path / "model.safetensors"))
            tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
        except Exception as exc:  # missing file, bad JSON, bad safetensors: one message
            raise EmbedderError(f"cannot load embedder from {self.path}: {exc}") from exc
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length=self.max_length)
        self._pad_id = int(self._config.get("pad_token_id", 0))
        # Some exports prefix every name with "bert.". Linear weights are kept transposed and
        # contiguous: a 2-D product then runs in BLAS (a 3-D one on a view is 5-10x slower).
        self._weights = {
            k.removeprefix("bert."): np.ascontiguousarray(
                v.T if k.startswith(("encoder.", "bert.encoder.")) and v.ndim == 2 else v,
                dtype=np.float32,
            )
            for k, v in weights.items()
        }
        self._tokenizer = tokenizer

    @property
    def dim(self) -> int:
        with self._lock:
            self._load()
        return int(self._config["hidden_size"])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        parts = list(self.embed_batches(texts))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(parts)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        """Vectors batch by batch (in the order given), so callers can report progress."""
        with self._lock:
            self._load()
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            with self._lock:
                ids = [e.ids for e in self._tokenizer.encode_batch(batch)]
                out = np.zeros((len(batch), int(self._config["hidden_size"])), dtype=np.float32)
                # Texts of similar length go through together, so little time goes on padding.
                order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
                for group in range(0, len(order), 16):
                    members = order[group : group + 16]
                    out[members] = self._pooled([ids[i] for i in members])
            yield out

    def _pooled(self, ids: list[list[int]]) -> np.ndarray:
        length = max(len(row) for row in ids)
        tokens = np.full((len(ids), length), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.float32)
        for i, row in enumerate(ids):
            tokens[i, : len(row)] = row
            mask[i, : len(row)] = 1.0
        hidden = self._forward(tokens, mask)
        pooled = (hidden * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self._weights
        assert w is not None
        eps = float(self._config.get("layer_norm_eps", 1e-12))
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: ids.shape[1]][None]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        # Padding is masked out of attention with a large negative score, as BERT does.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for i in range(int(self._config["num_hidden_layers"])):
            x = self._layer(x, bias, f"encoder.layer.{i}.", eps)
        return x

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        """x @ W + b over the last axis, as one 2-D product."""
        assert self._weights is not None
        weight, bias = self._weights[name + ".weight"], self._weights[name + ".bias"]
        flat = x.reshape(-1, x.shape[-1]) @ weight + bias
        return flat.reshape(*x.shape[:-1], weight.shape[1])

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str, eps: float) -> np.ndarray:
        w = self._weights
        assert w is not None
        heads = int(self._config["num_attention_heads"])
        batch, length, hidden = x.shape
        size = hidden // heads

        def project(name: str) -> np.ndarray:
            out = self._dense(x, f"{p}attention.self.{name}")
            return out.reshape(batch, length, heads, size).transpose(0, 2, 1, 3)

        q, k, v = project("query"), project("key"), project("value")
        scores = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / np.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        probs = scores / scores.sum(-1, keepdims=True)
        context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, hidden)
        attn = self._dense(context, f"{p}attention.output.dense")
        x = _layer_norm(
            attn + x,
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
            eps,
        )
        inner = _gelu(self._dense(x, f"{p}intermediate.dense"))
        out = self._dense(inner, f"{p}output.dense")
        return _layer_norm(
            out + x, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"], eps
        )
