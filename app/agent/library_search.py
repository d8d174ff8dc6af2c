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

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from app.agent.degraded import FullTextFallback
from app.library.embedding import Embedder
from app.library.models import DocumentInfo
from app.library.revisions import current_ids, revision_prior
from app.library.store import Store
from app.retrieval.text import SearchResult


class LibrarySearch(FullTextFallback):
    """Text search over the newest revision of every manual (all revisions on request)."""

    def __init__(
        self, store: Store, embedder: Embedder, all_revisions: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(store, embedder, **kwargs)
        self.all_revisions = all_revisions

    def search(
        self, text: str, k: int = 10, documents: Sequence[int] | None = None
    ) -> SearchResult:
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
        if all(prior.get(p.document_id, 1.0) == 1.0 for p in result.pages):
            return result
        pages = sorted(
            (replace(p, score=round(p.score * prior.get(p.document_id, 1.0), 6))
             for p in result.pages),
            key=lambda p: -p.score,
        )  # fmt: skip
        return replace(result, pages=tuple(pages), confidence=pages[0].confidence)


def searched_documents(search: Any) -> list[DocumentInfo]:
    """The manuals a question can draw on, for the Atlas: the newest revision of each
    (every revision when older ones are searched too)."""
    documents = search.store.list_documents()
    if not isinstance(search, LibrarySearch) or search.all_revisions:
        return documents  # type: ignore[no-any-return]
    current = set(current_ids(search.store))
    return [d for d in documents if d.id in current]


def revision_note(store: Store, cited: Sequence[str]) -> str:
    """One sentence saying which revision each cited manual with several revisions is
    quoted from ('' when none has more than one)."""
    from app.library.revisions import revision_of

    parts = []
    for label in dict.fromkeys(cited):
        doc = store.get_document(label)
        rev = revision_of(store, doc.id) if doc is not None else None
        if rev is None or rev.of < 2:
            continue
        newer = "" if rev.current else "; a newer revision exists"
        parts.append(f"{rev.title}: {rev.label()}{newer}")
    return f"Quoted from {'; '.join(parts)}." if parts else ""
