"""ColQwen visual page embeddings: the backend interface, shared helpers and backend choice.

A ColQwen model turns a page image into one vector per image patch (plus a few prompt
tokens) and a query into one vector per token; a page's score for a query is MaxSim, the
sum over query tokens of the best cosine with any page vector. Two backends implement the
same protocol: ``colqwen_mlx`` (mlx-vlm, the one used on Apple Silicon) and
``colqwen_torch`` (colpali-engine, the reference); ``colqwen_loader.load_colqwen`` picks
one. Both import their frameworks lazily, so importing this module costs nothing.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np

from app.runtime.lazy import LazyModel

if TYPE_CHECKING:
    from PIL import Image

BackendName = Literal["auto", "mlx", "torch"]


class ColQwenUnavailable(RuntimeError):
    """The ColQwen model cannot be used here; the message says why, for a person."""


@dataclass(frozen=True, slots=True)
class Availability:
    """Whether a backend can run, and if not, why (truthy when it can)."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True, slots=True, eq=False)
class PageEmbedding:
    """A page's multi-vector embedding.

    ``vectors`` is float32 ``(n, dim)``, every row L2-normalised. The first ``h * w`` rows
    are the image patches in row-major order of the patch ``grid`` ``(h, w)``, so a
    similarity map can be laid on the page; any further rows are the model's prompt tokens,
    which take part in MaxSim as colpali-engine scores them but have no place on the page.
    """

    vectors: np.ndarray
    grid: tuple[int, int]

    def __post_init__(self) -> None:
        h, w = self.grid
        if self.vectors.ndim != 2 or self.vectors.shape[0] < h * w:
            raise ValueError(f"{self.vectors.shape} vectors do not cover a {h}x{w} patch grid")

    @property
    def patch_vectors(self) -> np.ndarray:
        """The ``h * w`` vectors that sit on the page, row-major."""
        h, w = self.grid
        return self.vectors[: h * w]


@dataclass(frozen=True, slots=True)
class ColQwenOptions:
    """How pages are fed to the model.

    Attributes:
        max_visual_tokens: Most patch vectors per page; larger pages are downscaled first.
            ColQwen2.5 was trained around 768; more costs memory and time per page.
        dtype: Weights' precision; float32 on CPU, bfloat16 halves memory on a Mac.
    """

    max_visual_tokens: int = 768
    dtype: Literal["float32", "bfloat16", "float16"] = "float32"

    def __post_init__(self) -> None:
        if not 4 <= self.max_visual_tokens <= 16384:
            raise ValueError("max_visual_tokens must be between 4 and 16384")
        if self.dtype not in ("float32", "bfloat16", "float16"):
            raise ValueError(f"unknown dtype {self.dtype!r}")


@runtime_checkable
class ColQwenBackend(Protocol):
    """What visual retrieval needs from a ColQwen model."""

    name: str

    def available(self) -> Availability: ...

    def embed_images(self, images: list[Image.Image]) -> list[PageEmbedding]: ...

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]: ...


class LazyColQwen(LazyModel):
    """What both ColQwen backends share: the model and its processor load together on first
    use, after ``available()`` agrees; a failed load is remembered as the reason it gives."""

    label = "ColQwen"

    def __init__(self, spec: str, path: Path | None, options: ColQwenOptions | None) -> None:
        super().__init__(path, spec)
        self.spec = spec
        self.options = options or ColQwenOptions()
        self._model: Any = None
        self._processor: Any = None

    def available(self) -> Availability:
        raise NotImplementedError

    def _build(self, path: Path) -> tuple[Any, Any]:
        """The loaded (model, processor) of ``path``."""
        raise NotImplementedError

    def _vectors(self, model: Any, batch: Any) -> np.ndarray:
        """The model's normalised output vectors for a one-item processor batch."""
        raise NotImplementedError

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        """One (n_tokens, dim) array per text, as colpali-engine embeds queries."""
        model, processor = self._ensure()
        return [self._vectors(model, processor.process_queries([t])) for t in texts]

    def embed_images(self, images: list[Image.Image]) -> list[PageEmbedding]:
        """One PageEmbedding per image; large pages are downscaled to the pixel budget."""
        model, processor = self._ensure()
        ip = processor.image_processor
        out = []
        for image in images:
            batch = processor.process_images([fit_image(image, ip.size["longest_edge"])])
            _, gh, gw = (int(v) for v in batch["image_grid_thw"][0])
            grid = (gh // ip.merge_size, gw // ip.merge_size)
            vectors = self._vectors(model, batch)
            ids = batch["input_ids"][0].numpy()
            token = int(model.config.image_token_id)
            out.append(page_embedding_from_tokens(vectors, ids, token, grid))
        return out

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def _drop_weights(self) -> None:
        self._model = self._processor = None

    def _load_weights(self) -> None:
        state = self.available()
        if not state:
            raise ColQwenUnavailable(state.reason)
        assert self.path is not None
        try:
            self._model, self._processor = self._build(self.path)
        except ColQwenUnavailable as exc:
            self._error = str(exc)
            raise
        except Exception as exc:  # a broken folder must not break the app
            self._error = f"cannot load {self.label} from {self.path}: {exc}"
            raise ColQwenUnavailable(self._error) from exc

    def _ensure(self) -> tuple[Any, Any]:
        with self._lock:
            self._ensure_loaded()
            return self._model, self._processor


def fit_image(image: Image.Image, max_pixels: int) -> Image.Image:
    """The image in RGB, downscaled (aspect kept) so it holds at most ``max_pixels``.

    Resizing here rather than in the processor keeps a 300-dpi scan from being copied
    and normalised at full size first.
    """
    from PIL import Image as PILImage

    image = image.convert("RGB")
    w, h = image.size
    if w * h <= max_pixels:
        return image
    scale = (max_pixels / (w * h)) ** 0.5
    size = (max(28, int(w * scale)), max(28, int(h * scale)))
    return image.resize(size, PILImage.Resampling.LANCZOS)


def page_embedding_from_tokens(
    vectors: np.ndarray, input_ids: np.ndarray, image_token_id: int, grid: tuple[int, int]
) -> PageEmbedding:
    """Reorder one unpadded sequence's output so image tokens come first (see PageEmbedding)."""
    is_image = input_ids == image_token_id
    if int(is_image.sum()) != grid[0] * grid[1]:
        raise ValueError(f"{int(is_image.sum())} image tokens for a {grid} grid")
    ordered = np.concatenate([vectors[is_image], vectors[~is_image]]).astype(np.float32)
    return PageEmbedding(vectors=ordered, grid=grid)


# ---- finding weights -----------------------------------------------------------------
def resolve_model_path(spec: str | os.PathLike[str], models_dir: Path | None = None) -> Path | None:
    """A local folder for ``spec``: a folder path, a folder under ``models_dir``, or a
    Hugging Face cache snapshot of a hub id such as ``vidore/colqwen2.5-v0.2``.

    Never opens a network connection: the hub is asked with ``local_files_only``.
    """
    path = Path(spec).expanduser()
    if path.is_dir():
        return path
    spec = str(spec)
    if models_dir is not None:
        for name in (spec, spec.replace("/", "--")):
            if (models_dir / name).is_dir():
                return models_dir / name
    if spec.count("/") != 1:
        return None
    return _hf_cache_snapshot(spec)


def _hf_cache_snapshot(repo_id: str) -> Path | None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id, local_files_only=True))
    except Exception:  # not cached, or huggingface_hub missing: scan the cache ourselves
        pass
    from huggingface_hub import constants

    repo = Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}"
    ref = repo / "refs" / "main"
    if ref.is_file() and (repo / "snapshots" / ref.read_text().strip()).is_dir():
        return repo / "snapshots" / ref.read_text().strip()
    snapshots = sorted((repo / "snapshots").glob("*"), key=lambda p: p.stat().st_mtime)
    return snapshots[-1] if snapshots else None


def adapter_base(path: Path) -> str | None:
    """The base model id or path when ``path`` holds a LoRA adapter, else None."""
    cfg = path / "adapter_config.json"
    if not cfg.is_file():
        return None
    return str(json.loads(cfg.read_text()).get("base_model_name_or_path") or "")


def has_weights(path: Path) -> bool:
    return any(path.glob("*.safetensors"))


def choose_backend(preferred: BackendName = "auto") -> Literal["mlx", "torch"]:
    """MLX on Apple Silicon (Metal), torch elsewhere: MLX on a Linux CPU is ~20x slower."""
    if preferred != "auto":
        return preferred
    on_apple = sys.platform == "darwin" and platform.machine() == "arm64"
    return "mlx" if on_apple else "torch"


def missing_weights_reason(spec: str, path: Path | None) -> str:
    """A person-readable reason why ``spec`` cannot be loaded, or "" when it looks usable."""
    if not spec:
        return "no ColQwen model is configured (setting 'colqwen')"
    if path is None:
        return f"ColQwen model {spec!r} is not on this machine (no folder, not in the HF cache)"
    if not has_weights(path) and adapter_base(path) is None:
        return f"{path} holds no .safetensors weights"
    return ""


def maxsim(query: np.ndarray, page: np.ndarray) -> float:
    """ColBERT MaxSim: sum over query tokens of the best dot product with any page vector."""
    return float((query.astype(np.float32) @ page.astype(np.float32).T).max(axis=1).sum())


class FakeColQwen:
    """A deterministic stand-in for tests of code that only needs the protocol.

    Words hash to unit vectors; an image's patches are hashes of its pixels, so the same
    image always embeds the same way. Scores mean nothing beyond that.
    """

    name = "fake-colqwen"

    def __init__(self, dim: int = 16, grid: tuple[int, int] = (4, 3)) -> None:
        self.dim = dim
        self.grid = grid

    def available(self) -> Availability:
        return Availability(True)

    def _unit(self, seed: int, n: int) -> np.ndarray:
        v = np.random.default_rng(seed).standard_normal((n, self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed_queries(self, texts: list[str]) -> list[np.ndarray]:
        return [
            np.concatenate([self._unit(_stable_hash(w), 1) for w in (t.split() or [""])])
            for t in texts
        ]

    def embed_images(self, images: list[Image.Image]) -> list[PageEmbedding]:
        h, w = self.grid
        return [
            PageEmbedding(self._unit(_stable_hash(im.tobytes().hex()[:4096]), h * w), self.grid)
            for im in images
        ]


def _stable_hash(text: str) -> int:
    import hashlib

    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
