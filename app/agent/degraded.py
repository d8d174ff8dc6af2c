"""Degrade, don't fail: text search on full text alone when the embedder cannot load.

``DegradingEmbedder`` wraps the embedder: the first time it fails (its package or folder is
missing, its weights are broken) it records why and returns zero vectors from then on.
``FullTextFallback`` is the hybrid ``TextSearch`` that then stops asking the vector index
and ranks on BM25 alone for the rest of the session. The agent then says so once: a
``Status`` event the window shows in its status bar, and a sentence ending the next answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from app.agent.events import FALLBACK_TOOL, Answer, Event, Status, Token
from app.library.embedding import Embedder
from app.library.store import Store
from app.retrieval.text import TextSearch
from app.retrieval.vectors import Hit

log = logging.getLogger(__name__)


class GuardedVectors:
    """The library's vector index, asked only while the embedder works: once it has
    failed, KNN finds nothing and no chunk has a vector, so ranking is on words alone."""

    def __init__(self, inner: Any, embedder: Any) -> None:
        self.inner = inner
        self.embedder = embedder

    def knn(self, query: np.ndarray, k: int, exact: bool | None = None) -> list[tuple[int, float]]:
        if getattr(self.embedder, "failed", ""):
            return []
        return self.inner.knn(query, k, exact)  # type: ignore[no-any-return]

    def searcher(self, exact: bool | None = None) -> Callable[[np.ndarray, int], list[Hit]]:
        """``knn`` as of now, which finds nothing once the embedder has failed (it may
        fail embedding the very question this is for)."""
        if getattr(self.embedder, "failed", ""):
            return lambda query, k: []
        search = self.inner.searcher(exact)

        def knn(query: np.ndarray, k: int) -> list[Hit]:
            return [] if getattr(self.embedder, "failed", "") else search(query, k)  # type: ignore[no-any-return]

        return knn

    def get(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        if getattr(self.embedder, "failed", ""):
            return {}
        return self.inner.get(ids)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class DegradingEmbedder:
    """An embedder that, when its model cannot load or run, records why and returns zero
    vectors from then on: the extractive answer scores sentences on their words alone and
    ``FullTextFallback`` stops asking the vector index."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.failed = ""

    @property
    def dim(self) -> int:
        if not self.failed:
            try:
                return self.inner.dim
            except Exception as exc:
                self._fail(exc)
        return 1

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not self.failed:
            try:
                return self.inner.embed(texts)
            except Exception as exc:  # EmbedderError, ImportError, OSError, a torch error
                self._fail(exc)
        return np.zeros((len(texts), 1), dtype=np.float32)

    def embed_batches(self, texts: Sequence[str]) -> Iterator[np.ndarray]:
        yield self.embed(texts)

    def _fail(self, exc: Exception) -> None:
        self.failed = str(exc) or type(exc).__name__
        log.warning("text embedder unavailable, searching full text only: %s", self.failed)


class FullTextFallback(TextSearch):
    """Hybrid text search that goes on with full-text search alone once embedding fails."""

    told: bool = False
    """Whether an answer has said so yet."""

    @property
    def degraded(self) -> str:
        """Why search runs on full text only ('' while the embedder works)."""
        return getattr(self.embedder, "failed", "")

    def __init__(self, store: Store, embedder: Embedder, **kwargs: Any) -> None:
        super().__init__(store, embedder, **kwargs)
        self.vectors = GuardedVectors(self.vectors, embedder)  # type: ignore[assignment]


def notice(search: object) -> str:
    """The one sentence an answer adds when search ran on full text only."""
    reason = getattr(search, "degraded", "")
    return f"Searched the full text only: the text embedder could not load ({reason})."


def announce(search: object, answer: Answer) -> tuple[list[Event], Answer]:
    """Events to send before the answer, and the answer, with what the technician should
    know about where it comes from appended (and streamed as a token): which revision of a
    manual it quotes, and, the first time, that search ran on full text only."""
    before: list[Event] = []
    notes = []
    store = getattr(search, "store", None)
    if store is not None and answer.citations:
        from app.library.revisions import revision_note

        notes.append(revision_note(store, [c.document for c in answer.citations]))
    if getattr(search, "degraded", "") and not getattr(search, "told", True):
        search.told = True  # type: ignore[attr-defined]
        notes.append(notice(search))
        before.append(Status(notes[-1], FALLBACK_TOOL))
    text = "\n\n".join(n for n in notes if n)
    if not text:
        return before, answer
    before.append(Token("\n\n" + text))
    return before, replace(answer, text=f"{answer.text}\n\n{text}")
