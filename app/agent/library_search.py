"""The text search the agent uses: full-text fallback, and revisions.

By default only the newest revision of each manual is searched, so a manual re-issued
under the same name answers from its latest text. With ``all_revisions`` (setting
``search_old_revisions``, ``ask --all-revisions``) older revisions are searched too and
the newer takes precedence: each page's score is multiplied by
``app.library.revisions.revision_prior``.

Note for the ranker: the prior is applied here, after ``TextSearch.search`` ranked the
pages. Inside ``TextSearch`` it belongs beside ``_document_prior`` (in ``_rank_pages``
and ``_rerank``: ``score * _document_prior(...) * prior.get(doc_id, 1.0)``), which would
also let it act before the re-rank cut.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from app.agent.degraded import FullTextFallback
from app.agent.extractive import best_lines
from app.library.embedding import Embedder
from app.library.models import DocumentInfo
from app.library.revisions import current_ids, revision_prior
from app.library.store import Store
from app.retrieval.text import PageHit, SearchResult


class LibrarySearch(FullTextFallback):
    """Text search over the newest revision of every manual (all revisions on request)."""

    def __init__(
        self, store: Store, embedder: Embedder, all_revisions: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(store, embedder, **kwargs)
        self.all_revisions = all_revisions
        self.context_pages: frozenset[tuple[int, int]] = frozenset()
        """(document id, page) the last answer quoted, favoured during a follow-up."""

    def search(
        self, text: str, k: int = 10, documents: Sequence[int] | None = None
    ) -> SearchResult:
        return self._by_lines(named_first(self._with_context(self._search(text, k, documents))))

    def _search(self, text: str, k: int, documents: Sequence[int] | None) -> SearchResult:
        if self.all_revisions:
            return self._newer_first(super().search(text, k, documents))
        current = current_ids(self.store)
        if documents:
            allowed = set(current)
            # A request for an older revision by id is honoured: that is asking for it.
            documents = [d for d in documents if d in allowed] or list(documents)
        elif len(current) < len(self.store.list_documents()):
            documents = current
        return super().search(text, k, documents)

    def _newer_first(self, result: SearchResult) -> SearchResult:
        prior = revision_prior(self.store)
        return _weighted(result, lambda p: prior.get(p.document_id, 1.0))

    def _with_context(self, result: SearchResult) -> SearchResult:
        if not self.context_pages:
            return result
        context = self.context_pages
        return _weighted(
            result, lambda p: CONTEXT_PAGE_WEIGHT if (p.document_id, p.page) in context else 1.0
        )

    def _by_lines(self, result: SearchResult) -> SearchResult:
        """The result with its first pages ordered by their best lines too (``by_lines``)."""
        head = line_pages(result.pages)
        if len(head) < 2 or LINE_WEIGHT == 0.0:
            return result
        started = time.perf_counter()
        lines = best_lines(result, self, self.store, head)
        timings = {**result.timings, "lines": time.perf_counter() - started}
        pages = by_lines(result.pages, lines)
        if pages == result.pages:
            return replace(result, timings=timings)
        return replace(result, pages=pages, confidence=pages[0].confidence, timings=timings)


LINE_PAGES = 3
"""How many of a search's first pages are ordered by their best line too: the pages an
answer quotes from (``extractive.answer_pages``)."""
LINE_WEIGHT = 1.0
"""The weight of a page's best line beside its ranker score, chosen by leaving one corpus
out (``bench/fit_lines.py``)."""


def line_pages(pages: Sequence[PageHit]) -> list[PageHit]:
    """The pages ``by_lines`` orders: those of the first page's manual among the first
    ``LINE_PAGES``."""
    head = pages[:LINE_PAGES]
    return [p for p in head if p.document_id == head[0].document_id] if head else []


def by_lines(
    pages: Sequence[PageHit],
    lines: Mapping[tuple[int, int], float],
    weight: float | None = None,
) -> tuple[PageHit, ...]:
    """``pages`` with those of ``line_pages`` in the order of their score plus ``weight``
    (``LINE_WEIGHT``) times the score of their best line as a quote (``lines``, by document
    id and page: ``extractive.best_lines``), each in one of the places they held; their
    scores stay the page ranker's.

    The ranker reads a page as a whole, and a page that covers the question's topic all
    over can outrank the page whose one line or table row answers it (a question about one
    code: the page about reporting codes in general, against the table's row for that
    code). Which manual answers stays the ranker's to say: a line is weighed against the
    lines of its own manual, and no page of another manual moves."""
    weight = LINE_WEIGHT if weight is None else weight
    places = [i for i, p in enumerate(pages[:LINE_PAGES]) if p.document_id == pages[0].document_id]
    if len(places) < 2:
        return tuple(pages)
    ordered = sorted(
        (pages[i] for i in places),
        key=lambda p: -(p.score + weight * lines.get((p.document_id, p.page), 0.0)),
    )
    out = list(pages)
    for place, page in zip(places, ordered, strict=True):
        out[place] = page
    return tuple(out)


def named_first(result: SearchResult) -> SearchResult:
    """The result with the pages of the manuals the question names (``query.products``)
    before any other manual's, each group in its order; scores stay the ranker's.

    A question that names its equipment is answered from that equipment's manuals alone
    (``extractive.answer_manuals``): a page of another manual that shares its words says
    nothing about the equipment asked about, however well it ranks. In a library of many
    trades that happens (a question about one model's code: another maker's table of
    codes ranks first), and the pages shown first should be those the answer may quote."""
    named = set(result.query.products)
    if not named or not result.pages or result.pages[0].document_id in named:
        return result
    first = [p for p in result.pages if p.document_id in named]
    if not first:
        return result
    pages = (*first, *(p for p in result.pages if p.document_id not in named))
    return replace(result, pages=pages, confidence=pages[0].confidence)


CONTEXT_PAGE_WEIGHT = 1.15
"""How much a page the last answer quoted is favoured in a follow-up's searches."""


def _weighted(result: SearchResult, weight: Any) -> SearchResult:
    """The result with each page's score multiplied by ``weight(page)``, re-sorted."""
    weights = [weight(p) for p in result.pages]
    if all(w == 1.0 for w in weights):
        return result
    pages = sorted(
        (
            replace(p, score=round(p.score * w, 6))
            for p, w in zip(result.pages, weights, strict=True)
        ),
        key=lambda p: -p.score,
    )
    return replace(result, pages=tuple(pages), confidence=pages[0].confidence)


def set_context_pages(search: Any, pages: Sequence[tuple[int, int]]) -> None:
    """Tell the agent's search which pages the question follows up on (none: ())."""
    if isinstance(search, LibrarySearch):
        search.context_pages = frozenset(pages)


def searched_documents(search: Any) -> list[DocumentInfo]:
    """The manuals a question can draw on, for the Atlas: the newest revision of each
    (every revision when older ones are searched too)."""
    documents = search.store.list_documents()
    if not isinstance(search, LibrarySearch) or search.all_revisions:
        return documents  # type: ignore[no-any-return]
    current = set(current_ids(search.store))
    return [d for d in documents if d.id in current]
