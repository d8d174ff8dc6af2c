"""The NumPy question encoder gives the torch model's vectors, and never imports torch."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from app.library.bert_numpy import NumpyBert
from app.library.embedding import EmbedderError, TransformersEmbedder, minilm_path

TEXTS = [
    "What fuse rating does the drive need?",
    "ok",
    "The display light keeps going dark after a while - can I make it stay lit all the time?",
]


@pytest.fixture(scope="module")
def folder():  # type: ignore[no-untyped-def]
    try:
        path = minilm_path()
    except EmbedderError as exc:
        pytest.skip(f"MiniLM is not installed: {exc}")
    if not NumpyBert.supports(path):
        pytest.skip(f"{path} is not a plain BERT folder")
    return path


def test_numpy_vectors_equal_the_torch_models(folder) -> None:  # type: ignore[no-untyped-def]
    torch_model = TransformersEmbedder(folder, "minilm")
    expected = np.concatenate(list(torch_model.embed_batches(TEXTS)))  # the torch path
    got = NumpyBert(folder).embed(TEXTS)
    assert got.shape == expected.shape == (3, 384)
    assert np.abs(got - expected).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-6)


def test_a_question_is_embedded_without_importing_torch(folder) -> None:  # type: ignore[no-untyped-def]
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
