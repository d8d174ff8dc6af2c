"""Answering in retrieval mode: one hybrid search, then the extractive answerer.

This is the no-LLM path's core and what ``bench`` measures until the agent loop is
configured; it yields the same events as the full agent.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from app.agent.events import (
    Answer,
    CitationOut,
    Decision,
    Done,
    Event,
    PageOut,
    Result,
    Status,
    Token,
)
from app.agent.extractive import ExtractiveAnswer, answer_from_search
from app.library.embedding import Embedder
from app.library.store import Store
from app.retrieval.text import SearchResult, TextSearch


class RetrievalAnswerer:
    """Search once, quote the evidence, or say the manuals do not say."""

    def __init__(self, store: Store, embedder: Embedder, pages: int = 10) -> None:
        self.store = store
        self.embedder = embedder
        self.search = TextSearch(store, embedder)
        self.pages = pages

    def ask(self, question: str) -> Iterator[Event]:
        started = time.perf_counter()
        yield Decision(
            "text_search", "Search the manuals' text for the question.", {"query": question}, 1
        )
        yield Status("Searching the manuals…", "text_search")
        t0 = time.perf_counter()
        result = self.search.search(question, k=self.pages)
        yield Result(
            "text_search",
            _summary(result),
            [
                {
                    "document": p.file_name,
                    "page": p.page,
                    "score": p.score,
                    "confidence": p.confidence,
                }
                for p in result.pages
            ],
            round(time.perf_counter() - t0, 4),
        )
        yield Decision("answer", "Quote the passages that answer it, with citations.", {}, 2)
        answer = answer_from_search(result, self.search, self.store)
        for piece in _pieces(answer.text):
            yield Token(piece)
        yield to_answer_event(answer, result)
        yield Done(round(time.perf_counter() - started, 4), steps=2)


def to_answer_event(answer: ExtractiveAnswer, result: SearchResult) -> Answer:
    return Answer(
        text=answer.text,
        citations=[
            CitationOut(
                c.document, c.title, c.page, [[round(v, 2) for v in box] for box in c.regions]
            )
            for c in answer.citations
        ],
        abstained=answer.abstained,
        pages=[PageOut(p.file_name, p.page, p.score) for p in result.pages],
        confidence=round(answer.support, 3),
    )


def _summary(result: SearchResult) -> str:
    if not result.pages:
        return "nothing found"
    top = result.pages[0]
    best = f"{top.title} p.{top.page}"
    return f"{len(result.pages)} pages; best {best} (confidence {top.confidence:.2f})"


def _pieces(text: str, size: int = 24) -> Iterator[str]:
    """The answer in small pieces, so it streams like a model's tokens."""
    for start in range(0, len(text), size):
        yield text[start : start + size]
