"""The naive baseline that every retrieval change is measured beside."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from app.library.embedding import HashingEmbedder
from app.library.models import ManualProfile
from app.library.store import NewDocument, PageRecord, Store

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from baseline import NaiveBaseline, fixed_chunks


def test_fixed_chunks_overlap_by_a_hundred_characters() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(2000))
    chunks = fixed_chunks(text)
    assert [len(c) for c in chunks] == [800, 800, 600]
    assert chunks[0][-100:] == chunks[1][:100]


def _page(number: int, text: str) -> PageRecord:
    return PageRecord(number, 600.0, 800.0, text, text, False, ())


def test_pages_rank_by_words_and_meaning_fused(store: Store) -> None:
    texts = ["The fuse is rated 20 A.", "Mount the bracket with two screws.", "Press the button."]
    store.add_document(
        NewDocument(
            sha256="sha",
            file_name="Drive.pdf",
            title="Drive",
            source_path="",
            pages=[_page(i + 1, t) for i, t in enumerate(texts)],
            chunks=[],
            chunk_search_texts=[],
            vectors=np.zeros((0, 32), dtype=np.float32),
            profile=ManualProfile(),
        )
    )
    baseline = NaiveBaseline(store, HashingEmbedder())
    pages = baseline.search("what fuse rating")
    assert (pages[0].document, pages[0].page) == ("Drive.pdf", 1)
