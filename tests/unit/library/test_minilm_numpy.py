"""The torch-free MiniLM forward pass the app bundle uses gives torch's vectors."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from app.library import embedding
from app.library.embedding import EmbedderError, make_embedder, minilm_path
from app.library.minilm_numpy import NumpyBertEmbedder

TEXTS = [
    "Which jumper makes the PGM output 12 V?",
    "ok",
    "The AUX+ terminal supplies 13.8 V DC ±5 % at up to 500 mA; use 18 AWG wire. " * 12,
    "Réglage du relais Ü ✱ 2 → 2.2 kΩ",
]


@pytest.fixture(scope="module")
def numpy_embedder() -> NumpyBertEmbedder:
    return NumpyBertEmbedder(minilm_path(), "all-MiniLM-L6-v2")


def test_vectors_match_torch(numpy_embedder):
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: nothing to compare the numpy vectors with")
    torch_model = embedding.TransformersEmbedder(minilm_path(), "all-MiniLM-L6-v2")
    # embed_batches is the torch path (embed sends a few texts to NumPy).
    reference = np.concatenate(list(torch_model.embed_batches(TEXTS)))
    vectors = numpy_embedder.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    assert float((vectors * reference).sum(1).min()) > 0.99999
    assert np.abs(vectors - reference).max() < 1e-4


def test_order_batches_and_norms_are_kept(numpy_embedder):
    numpy_embedder.batch_size = 3
    one_by_one = np.concatenate([numpy_embedder.embed([t]) for t in TEXTS])
    batches = list(numpy_embedder.embed_batches(TEXTS))
    assert [len(b) for b in batches] == [3, 1]
    assert np.allclose(np.concatenate(batches), one_by_one, atol=1e-5)
    assert np.allclose(np.linalg.norm(one_by_one, axis=1), 1.0, atol=1e-5)
    assert numpy_embedder.embed([]).shape == (0, 384)


def test_related_texts_are_closer_than_unrelated(numpy_embedder):
    q, near, far = numpy_embedder.embed(
        ["how do I wire the siren", "Connect the siren to the BELL+ and BELL- terminals.",
         "Clean the enclosure with a dry cloth."]
    )  # fmt: skip
    assert float(q @ near) > float(q @ far) + 0.1


def test_without_torch_the_minilm_setting_runs_on_numpy(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a)
    )
    monkeypatch.setattr(embedding, "_CACHE", {})
    embedder = make_embedder("minilm")
    assert isinstance(embedder, NumpyBertEmbedder)
    assert embedder.name == "all-MiniLM-L6-v2"  # same vectors, so libraries need no re-embed


def test_a_broken_folder_says_so(tmp_path):
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(EmbedderError, match="cannot load embedder"):
        NumpyBertEmbedder(tmp_path, "broken").embed(["x"])


def test_a_question_is_embedded_without_importing_torch() -> None:
    """With torch installed (a checkout), a question still goes through NumPy: answering
    must not pay for importing torch."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from app.library.embedding import make_embedder\n"
        "vector = make_embedder('minilm').embed(['how long is the lockout?'])\n"
        "assert vector.shape == (1, 384)\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "False"


def test_torch_bulk_in_length_groups_keeps_order_and_vectors(monkeypatch):
    """An import's batches go through torch in groups of similar length: each text keeps
    its place and gets the vector it gets alone (no padding at all)."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: imports embed with numpy")
    monkeypatch.setattr(embedding, "LENGTH_GROUP", 3)
    torch_model = embedding.TransformersEmbedder(minilm_path(), "all-MiniLM-L6-v2", batch_size=5)
    texts = [t[: 7 * (i % 4 + 1) ** 2] for i, t in enumerate(TEXTS * 3)]  # 12 varied lengths
    batches = list(torch_model.embed_batches(texts))
    assert [len(b) for b in batches] == [5, 5, 2]
    alone = np.concatenate([next(iter(torch_model.embed_batches([t]))) for t in texts])
    grouped = np.concatenate(batches)
    assert float((grouped * alone).sum(1).min()) > 0.99999


def test_only_a_plain_bert_folder_goes_to_numpy(tmp_path):
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.safetensors", "tokenizer.json"):
        (folder / name).write_bytes(b"")
    (folder / "config.json").write_text('{"model_type": "xlm-roberta"}', encoding="utf-8")
    assert not embedding._plain_bert(folder)
    (folder / "config.json").write_text('{"model_type": "bert"}', encoding="utf-8")
    assert embedding._plain_bert(folder)
    (folder / "config.json").write_text("not json", encoding="utf-8")
    assert not embedding._plain_bert(folder)
    assert embedding._plain_bert(minilm_path())
