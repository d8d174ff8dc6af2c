"""The naive baseline every retrieval change is measured beside.

What a document-chat tool does out of the box: BM25 over whole pages (``rank-bm25``),
all-MiniLM-L6-v2 over fixed 800-character chunks with 100 characters of overlap (a page
ranks by its best chunk), the two page rankings fused by reciprocal rank (k=60). It reads
the page text a library stores and knows nothing else about the manuals.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

from app.library.embedding import Embedder
from app.library.store import Store

CHUNK_CHARS = 800
CHUNK_OVERLAP = 100
RRF_K = 60
_TOKEN = re.compile(r"\w+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def fixed_chunks(text: str, size: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[str]:
    """Fixed-size character windows, ``overlap`` characters shared between neighbours."""
    text = " ".join(text.split())
    if not text:
        return []
    step = size - overlap
    return [text[i : i + size] for i in range(0, max(len(text) - overlap, 1), step)]


@dataclass(frozen=True, slots=True)
class BaselinePage:
    document: str  # file name, as citations name it
    page: int
    score: float


@dataclass(frozen=True, slots=True)
class BaselineLists:
    bm25: np.ndarray  # per page
    cosine: np.ndarray  # per page: its best chunk's, -1 with none
    fused: dict[int, float]  # page index -> RRF score, pages in either list only


class NaiveBaseline:
    """BM25 over pages + MiniLM over 800-character chunks, fused by RRF (k=60)."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.embedder = embedder
        self.keys: list[tuple[str, int]] = []
        texts: list[str] = []
        for doc in store.list_documents():
            for number in range(1, doc.pages + 1):
                self.keys.append((doc.file_name, number))
                texts.append(store.page_text(doc.id, number) or "")
        self.bm25 = BM25Okapi([_tokens(t) or ["\u2205"] for t in texts])
        self.chunk_page: list[int] = []
        chunks: list[str] = []
        for index, text in enumerate(texts):
            for chunk in fixed_chunks(text):
                chunks.append(chunk)
                self.chunk_page.append(index)
        self.vectors = embedder.embed(chunks) if chunks else np.zeros((0, embedder.dim))

    def search(self, question: str, k: int = 10) -> list[BaselinePage]:
        lists = self.lists(question)
        fused = lists.fused
        order = sorted(fused, key=lambda i: -fused[i])[:k]
        return [BaselinePage(*self.keys[i], round(fused[i], 6)) for i in order]

    def lists(self, question: str) -> BaselineLists:
        """Every page's BM25 score and best chunk cosine, and the RRF fusion of their
        rankings (indices into ``keys``)."""
        lexical = self.bm25.get_scores(_tokens(question))
        best_dense = np.full(len(self.keys), -1.0)
        if len(self.vectors):
            cosine = self.vectors @ self.embedder.embed([question])[0]
            np.maximum.at(best_dense, np.asarray(self.chunk_page), cosine)
        fused: dict[int, float] = {}
        for ranking in (_ranking(lexical), _ranking(best_dense)):
            for rank, index in enumerate(ranking):
                fused[index] = fused.get(index, 0.0) + 1.0 / (RRF_K + rank + 1)
        return BaselineLists(np.asarray(lexical), best_dense, fused)


def _ranking(scores: Sequence[float] | np.ndarray, depth: int = 100) -> list[int]:
    """Indices of the best ``depth`` positive scores, best first."""
    values = np.asarray(scores, dtype=float)
    order = np.argsort(-values, kind="stable")[:depth]
    return [int(i) for i in order if values[i] > 0]
