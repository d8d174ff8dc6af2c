"""ColQwen backends on a tiny random ColQwen2.5: MLX/torch parity, loading, availability."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw

from app.runtime import colqwen
from app.runtime.colqwen import (
    ColQwenBackend,
    ColQwenOptions,
    FakeColQwen,
    PageEmbedding,
    maxsim,
    resolve_model_path,
)
from app.runtime.colqwen_loader import load_colqwen
from app.runtime.colqwen_mlx import MlxColQwen
from app.runtime.colqwen_torch import TorchColQwen, install_torchvision_shim

QUERIES = ["invoice total", "red square on blue page"]


def pages() -> list[Image.Image]:
    text = Image.new("RGB", (224, 160), "white")
    ImageDraw.Draw(text).text((10, 10), "invoice total 42", fill="black")
    big = Image.new("RGB", (1240, 1754), "lightblue")  # an A4 page at 150 dpi: gets downscaled
    ImageDraw.Draw(big).rectangle((100, 150, 700, 900), fill="red")
    return [text, big]


def scores(queries: list[np.ndarray], embs: list[PageEmbedding]) -> np.ndarray:
    return np.array([[maxsim(q, e.vectors) for e in embs] for q in queries])


def test_mlx_and_torch_give_the_same_vectors_and_maxsim(tiny_colqwen_dir: Path) -> None:
    torch_b = load_colqwen(str(tiny_colqwen_dir), backend="torch")
    mlx_b = load_colqwen(str(tiny_colqwen_dir), backend="mlx")
    assert isinstance(torch_b, TorchColQwen) and isinstance(mlx_b, MlxColQwen)
    tq, mq = torch_b.embed_queries(QUERIES), mlx_b.embed_queries(QUERIES)
    ti, mi = torch_b.embed_images(pages()), mlx_b.embed_images(pages())
    dq = max(float(np.abs(a - b).max()) for a, b in zip(tq, mq, strict=True))
    di = max(float(np.abs(a.vectors - b.vectors).max()) for a, b in zip(ti, mi, strict=True))
    ds = float(np.abs(scores(tq, ti) - scores(mq, mi)).max())
    print(f"parity: max|dq|={dq:.1e} max|dimg|={di:.1e} max|dscore|={ds:.1e}")
    assert [e.grid for e in ti] == [e.grid for e in mi]
    assert dq < 1e-5 and di < 1e-5 and ds < 1e-4
    stock = _stock_mlx_image_drift(mlx_b, pages()[0], ti[0])
    print(f"stock mlx-vlm forward (0..n positions): max|dimg|={stock:.1e}")
    assert stock > 10 * di  # the mrope positions are what makes images agree


def _stock_mlx_image_drift(backend: MlxColQwen, image: Image.Image, ref: PageEmbedding) -> float:
    """How far mlx-vlm's own forward (sequential positions) lands from colpali-engine."""
    import mlx.core as mx

    model, processor = backend._ensure()
    batch = processor.process_images([image])
    thw = batch["image_grid_thw"]
    out = model(
        input_ids=mx.array(batch["input_ids"].numpy()),
        pixel_values=mx.array(batch["pixel_values"][0, : int(thw[0, 1] * thw[0, 2])].numpy()),
        attention_mask=mx.array(batch["attention_mask"].numpy()),
        image_grid_thw=mx.array(thw.numpy()),
    ).text_embeds
    ids = batch["input_ids"][0].numpy()
    stock = colqwen.page_embedding_from_tokens(
        np.array(out[0]), ids, model.config.image_token_id, ref.grid
    )
    return float(np.abs(stock.vectors - ref.vectors).max())


def test_torch_backend_matches_colpali_scoring_and_lays_patches_on_a_grid(
    tiny_colqwen_dir: Path,
) -> None:
    backend = TorchColQwen(str(tiny_colqwen_dir), tiny_colqwen_dir)
    queries, embs = backend.embed_queries(QUERIES), backend.embed_images(pages())
    model, processor = backend._ensure()
    import torch

    raw = []
    for image in pages():
        with torch.inference_mode():
            raw.append(model(**processor.process_images([colqwen.fit_image(image, 224 * 224)]))[0])
    expected = processor.score_multi_vector([torch.from_numpy(q) for q in queries], raw)
    np.testing.assert_allclose(scores(queries, embs), expected.numpy(), rtol=1e-5)
    for emb in embs:
        assert np.allclose(np.linalg.norm(emb.vectors, axis=1), 1.0, atol=1e-5)
    (h1, w1), (h2, w2) = embs[0].grid, embs[1].grid
    assert w1 > h1 and h2 > w2  # landscape stays landscape, portrait stays portrait
    assert h2 * w2 <= 224 * 224 // 28**2


def test_a_smaller_token_budget_downscales_pages(tiny_colqwen_dir: Path) -> None:
    backend = TorchColQwen(str(tiny_colqwen_dir), tiny_colqwen_dir, ColQwenOptions(16))
    (emb,) = backend.embed_images(pages()[1:])
    assert emb.grid[0] * emb.grid[1] <= 16


def test_a_lora_adapter_is_merged_onto_its_base(tiny_colqwen_dir: Path, tmp_path: Path) -> None:
    import torch
    from peft import LoraConfig, get_peft_model

    from app.runtime.colqwen_torch import load_torch_model

    torch.manual_seed(1)
    base = load_torch_model(tiny_colqwen_dir, ColQwenOptions(), None)
    lora = LoraConfig(
        r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], init_lora_weights=False
    )
    tuned = get_peft_model(base, lora)
    adapter = tmp_path / "adapter"
    tuned.save_pretrained(adapter, save_embedding_layers=False)
    cfg = json.loads((adapter / "adapter_config.json").read_text())
    cfg["base_model_name_or_path"] = str(tiny_colqwen_dir)
    (adapter / "adapter_config.json").write_text(json.dumps(cfg))
    for name in ("tokenizer.json", "tokenizer_config.json", "preprocessor_config.json"):
        shutil.copy(tiny_colqwen_dir / name, adapter / name)

    backend = load_colqwen(str(adapter), backend="torch")
    assert backend.available()
    got = backend.embed_queries(QUERIES[:1])[0]
    plain = TorchColQwen(str(tiny_colqwen_dir), tiny_colqwen_dir).embed_queries(QUERIES[:1])[0]
    batch = backend._ensure()[1].process_queries(QUERIES[:1])  # type: ignore[attr-defined]
    with torch.inference_mode():
        expected = tuned.merge_and_unload()(**batch)[0].numpy()
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert np.abs(got - plain).max() > 1e-3  # the adapter really changed the model
    reason = MlxColQwen(str(adapter), adapter).available().reason
    assert "LoRA adapter" in reason and "merged" in reason


def test_missing_weights_give_a_reason_not_an_exception(tmp_path: Path) -> None:
    assert "no ColQwen model" in TorchColQwen("", None).available().reason
    assert "not on this machine" in load_colqwen("vidore/absent-model").available().reason
    (tmp_path / "config.json").write_text("{}")
    empty = load_colqwen(str(tmp_path), backend="mlx").available()
    assert not empty and "no .safetensors" in empty.reason
    with pytest.raises(colqwen.ColQwenUnavailable):
        TorchColQwen("vidore/absent-model", None).embed_queries(["x"])
    (tmp_path / "adapter_config.json").write_text('{"base_model_name_or_path": "vidore/absent"}')
    orphan = TorchColQwen(str(tmp_path), tmp_path).available()
    assert not orphan and "base model 'vidore/absent'" in orphan.reason


def test_hub_ids_resolve_to_a_cached_snapshot_without_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    repo = tmp_path / "models--vidore--colqwen2.5-v0.2"
    snap = repo / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "adapter_config.json").write_text('{"base_model_name_or_path": "vidore/base"}')
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path))
    assert resolve_model_path("vidore/colqwen2.5-v0.2") == snap
    assert resolve_model_path("vidore/other") is None
    assert colqwen.adapter_base(snap) == "vidore/base"


def test_adapters_go_to_torch_even_where_mlx_is_preferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setattr(colqwen.platform, "machine", lambda: "arm64")
    (tmp_path / "adapter_config.json").write_text('{"base_model_name_or_path": "x/y"}')
    assert isinstance(load_colqwen(str(tmp_path)), TorchColQwen)
    (tmp_path / "adapter_config.json").unlink()
    assert isinstance(load_colqwen(str(tmp_path)), MlxColQwen)


def test_the_torchvision_shim_engages_only_without_torchvision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import app.runtime.colqwen_torch as ct

    monkeypatch.setattr(ct, "torchvision_usable", lambda: True)
    monkeypatch.delitem(sys.modules, ct._TV_MODULE, raising=False)
    assert ct.install_torchvision_shim.__wrapped__() is False
    assert ct._TV_MODULE not in sys.modules
    monkeypatch.setattr(ct, "torchvision_usable", lambda: False)
    assert ct.install_torchvision_shim.__wrapped__() is True
    assert sys.modules[ct._TV_MODULE].__name__ == ct._PIL_MODULE
    install_torchvision_shim()


def test_the_fake_backend_keeps_the_protocol() -> None:
    fake = FakeColQwen(dim=8, grid=(2, 3))
    assert isinstance(fake, ColQwenBackend)
    (emb,) = fake.embed_images([Image.new("RGB", (10, 10))])
    assert emb.vectors.shape == (6, 8) and emb.grid == (2, 3)
    assert fake.embed_queries(["a b c"])[0].shape == (3, 8)
