"""BM25 in memory for large libraries: FTS5's own ``bm25()`` scores, without its per-row
cost.

FTS5 finds what an OR-query over a question's words matches quickly (under 1 ms at 100k
chunks), then calls its ``bm25()`` function on every match, and each call reads the row's
size from the index: a question whose words are common in the library matches ~14,000
chunks at 100k, and scoring them takes 10 ms (its pages, 7). Above ``THRESHOLD`` chunks,
the term frequencies of the chunks and of the pages are kept in memory instead, read
with the index's own tokenizer (through apsw, so a term here is a term of the index), and
a query is scored with numpy in about 1 ms by FTS5's formula, operation for operation:
k1 1.2, b 0.75, the columns' weights (a chunk's heading weighs half), each phrase's idf
from the rows holding it and floored at 1e-6, a row's length in tokens over its columns.
The scores are FTS5's to the last bit, so the ranking is the same; rows of equal score
come in id order.

A phrase of several tokens (a code or value: "13.8", "HSGW-MAX8") needs token positions,
which this does not keep: its part of each row's score comes from FTS5, asked for that
phrase alone (a phrase's part of BM25 does not depend on the query's other phrases), and
is added in the query's order.

What a document's rows hold is read again from its text, and checked against the sizes
FTS5 stored for them: a document whose rows the index counts otherwise (text indexed by
an older version) leaves that index to FTS5. The price: ~0.7 kB of memory per chunk, and
reading every chunk's and page's text once the first time a large library is searched
(the window's warm start does it; ~4 s at 100k chunks), then again only for the
documents that changed.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat
from typing import Any, cast

import apsw
import numpy as np

from app.library.store import Store
from app.library.symbols import searchable_text
from app.library.text_queries import (
    document_chunk_texts,
    document_page_texts,
    index_sizes,
    phrase_scores,
)
from app.library.vector_rows import database_version, document_signatures

THRESHOLD = 5_000  # chunks; below it FTS5 scores a question in a millisecond or two
K1, B = 1.2, 0.75  # FTS5's bm25() constants
# The indexes' tokenizer (migrations.m006_porter_fts).
TOKENIZER = ("porter", ["unicode61", "remove_diacritics", "2"])


@dataclass(frozen=True, slots=True)
class Source:
    """One full-text index: its table, its columns' BM25 weights, and how to read a
    document's rows as (row id, page number, column texts...) the way they were indexed."""

    table: str
    weights: tuple[float, ...]
    read: Callable[[apsw.Connection, int], list[tuple[Any, ...]]]
    signatures: Callable[[apsw.Connection], dict[int, tuple[object, ...]]]


def _chunk_rows(db: apsw.Connection, doc_id: int) -> list[tuple[Any, ...]]:
    return [
        (cid, page, text, heading) for cid, page, text, heading in document_chunk_texts(db, doc_id)
    ]


def _page_rows(db: apsw.Connection, doc_id: int) -> list[tuple[Any, ...]]:
    # The importer indexes a page's text with its key glyphs read as words.
    return [
        (pid, number, searchable_text(text or ""))
        for pid, number, text in document_page_texts(db, doc_id)
    ]


# Weighted as text_queries.bm25_chunk_ids and bm25_pages weigh them.
CHUNKS = Source("chunks_fts", (1.0, 0.5), _chunk_rows, document_signatures)
PAGES = Source("pages_fts", (1.0,), _page_rows, partial(document_signatures, rows="pages"))


@dataclass(frozen=True, slots=True)
class _Document:
    """One document's rows and their (term, row, weighted frequency) postings."""

    ids: np.ndarray  # (n,) int64 row ids, ascending
    pages: np.ndarray  # (n,) int64 the page number of each row
    lengths: np.ndarray  # (n,) float64 tokens of a row, over its columns
    terms: np.ndarray  # (p,) int32 term number (``_Index.vocabulary``)
    rows: np.ndarray  # (p,) int32 the row within this document
    freq: np.ndarray  # (p,) float32 occurrences, each weighted by its column (exact)
    exact: bool  # every row has the size FTS5 stored for it


@dataclass(frozen=True, slots=True)
class _Index:
    key: tuple[int, int, int]  # the database version it was read at
    signatures: dict[int, tuple[object, ...]]
    parts: dict[int, _Document]
    vocabulary: dict[str, int]  # term -> number; only grows
    ids: np.ndarray  # (N,) row id of each row, ascending
    owners: np.ndarray  # (N,) its document
    pages: np.ndarray  # (N,) its page number
    lengths: np.ndarray  # (N,) float64
    starts: np.ndarray  # (terms + 1,) where each term's postings start in rows/freq
    rows: np.ndarray  # postings sorted by term: the row
    freq: np.ndarray  # ...and the weighted frequency
    avgdl: float
    exact: bool

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        number = self.vocabulary.get(term)
        if number is None or number + 1 >= len(self.starts):
            return _NO_ROWS, _NO_FREQ
        a, b = self.starts[number], self.starts[number + 1]
        return self.rows[a:b], self.freq[a:b].astype(np.float64)

    def contribution(self, rows: np.ndarray, freq: np.ndarray) -> np.ndarray:
        """One single-token phrase's part of the score of each row holding it
        (fts5_aux.c's fts5Bm25Function, in its order of operations)."""
        n, hits = len(self.ids), len(rows)
        idf = math.log((n - hits + 0.5) / (hits + 0.5))
        if idf <= 0.0:
            idf = 1e-6
        norm = K1 * ((1 - B) + B * self.lengths[rows] / self.avgdl)
        return idf * ((freq * (K1 + 1.0)) / (freq + norm))

    def rows_of(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, mask of ``ids`` found) for some row ids."""
        rows = np.searchsorted(self.ids, ids)
        found = (rows < len(self.ids)) & (self.ids[np.minimum(rows, len(self.ids) - 1)] == ids)
        return rows[found].astype(np.int32), found


_NO_ROWS = np.zeros(0, np.int32)
_NO_FREQ = np.zeros(0, np.float64)


class LexicalIndex:
    """BM25 over one of a store's full-text indexes: in memory above ``THRESHOLD``
    chunks, FTS5's below."""

    def __init__(self, store: Store, source: Source) -> None:
        self.store = store
        self.source = source

    def warm(self, chunks: int) -> None:
        """Read the postings of a library of ``chunks`` chunks now, if it is large enough
        to be scored in memory (its first search would)."""
        if chunks >= THRESHOLD:
            index(self.store, self.source)

    def places(self, ids: Sequence[int], chunks: int) -> dict[int, tuple[int, int]] | None:
        """(document id, page number) of each of some rows the index holds, in a library
        of ``chunks`` chunks; None when it is too small to be kept in memory."""
        if chunks < THRESHOLD:
            return None
        snap = index(self.store, self.source)
        wanted = np.asarray(ids, np.int64)
        rows, found = snap.rows_of(wanted)
        return dict(
            zip(
                wanted[found].tolist(),
                zip(snap.owners[rows].tolist(), snap.pages[rows].tolist(), strict=True),
                strict=True,
            )
        )

    def top(
        self, db: apsw.Connection, phrases: Sequence[str], limit: int, chunks: int
    ) -> list[tuple[int, int, int]] | None:
        """(row id, document id, page number) of the ``limit`` best rows for an OR of
        ``phrases`` (as ``query.fts_phrases`` gives them), best first, in a library of
        ``chunks`` chunks; None when FTS5 should score it (a small library, or text the
        index holds otherwise). ``db`` answers the several-token phrases."""
        if not phrases or chunks < THRESHOLD:
            return None
        snap = index(self.store, self.source)
        if not snap.exact:
            return None
        score = np.zeros(len(snap.ids))
        matched = np.zeros(len(snap.ids), bool)
        for phrase in phrases:
            tokens = _tokens(phrase)
            if len(tokens) == 1:
                rows, freq = snap.postings(tokens[0])
                if len(rows):
                    score[rows] += snap.contribution(rows, freq)
            else:
                rows, part = self._phrase_part(db, snap, phrase)
                if len(rows):
                    score[rows] += part
            matched[rows] = True
        found = np.flatnonzero(matched)
        if len(found) > limit:
            # The limit-th best score, and every row at least as good (ties kept whole).
            cut = -np.partition(-score[found], limit - 1)[limit - 1]
            found = found[score[found] >= cut]
        best = found[np.lexsort((snap.ids[found], -score[found]))[:limit]]
        return list(
            zip(
                snap.ids[best].tolist(),
                snap.owners[best].tolist(),
                snap.pages[best].tolist(),
                strict=True,
            )
        )

    def _phrase_part(
        self, db: apsw.Connection, snap: _Index, phrase: str
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, part of their score) for a several-token phrase: FTS5's BM25 for the
        phrase alone, which ``bm25()`` returns negated: -(0.0 + part) gives it back."""
        pairs = phrase_scores(db, self.source.table, self.source.weights, '"' + phrase + '"')
        if not pairs:
            return _NO_ROWS, _NO_FREQ
        rows, found = snap.rows_of(np.array([p[0] for p in pairs], np.int64))
        return rows, -np.array([p[1] for p in pairs], np.float64)[found]


# ---- the per-store indexes ----------------------------------------------------------
_indexes: weakref.WeakKeyDictionary[Store, dict[str, _Index]] = weakref.WeakKeyDictionary()
_tokenizers = threading.local()


def _tokenizer() -> apsw.FTS5Tokenizer:
    """The indexes' tokenizer (one per thread, on an in-memory connection of its own)."""
    made = getattr(_tokenizers, "made", None)
    if made is None:
        db = apsw.Connection(":memory:")
        made = (db, db.fts5_tokenizer(*TOKENIZER))
        _tokenizers.made = made
    return made[1]


def _tokens(text: str, reason: int = apsw.FTS5_TOKENIZE_QUERY) -> list[str]:
    if not text:
        return []
    tokenize = _tokenizer()
    found = tokenize(
        text.encode("utf-8"), reason, None, include_offsets=False, include_colocated=False
    )
    return cast(list[str], found)  # without offsets or colocated tokens: the tokens alone


def index(store: Store, source: Source) -> _Index:
    """The store's postings for ``source``, brought up to date if the database changed."""
    current = _indexes.get(store, {}).get(source.table)
    if current is not None and current.key == database_version(store.db):
        return current
    with store.transaction() as db:  # one refresh at a time; never sees half an import
        current = _indexes.get(store, {}).get(source.table)
        key = database_version(db)
        if current is None or current.key != key:
            current = _refresh(db, source, current, key)
            _indexes.setdefault(store, {})[source.table] = current
    return current


def _refresh(
    db: apsw.Connection, source: Source, old: _Index | None, key: tuple[int, int, int]
) -> _Index:
    """Read the documents that changed (a document is known by its sha256 and chunk ids:
    SQLite hands a removed document's ids to the next import), keep the others."""
    signatures = source.signatures(db)
    vocabulary = old.vocabulary if old is not None else {}
    parts = {}
    for doc_id, signature in signatures.items():
        if old is not None and old.signatures.get(doc_id) == signature:
            parts[doc_id] = old.parts[doc_id]
        else:
            parts[doc_id] = _read_document(db, source, doc_id, vocabulary)
    return _build(key, signatures, parts, vocabulary)


def _read_document(
    db: apsw.Connection, source: Source, doc_id: int, vocabulary: dict[str, int]
) -> _Document:
    """A document's rows and postings (100k chunks: ~3 s; the counting stays in C)."""
    ids: list[int] = []
    pages: list[int] = []
    lengths: list[int] = []
    terms: list[int] = []
    rows: list[int] = []
    freq: list[float] = []
    for row, (row_id, page, *columns) in enumerate(source.read(db, doc_id)):
        counts: Counter[str] = Counter()
        size = 0
        for text, weight in zip(columns, source.weights, strict=True):
            tokens = _tokens(text or "", apsw.FTS5_TOKENIZE_DOCUMENT)
            size += len(tokens)
            if weight == 1.0:
                counts.update(tokens)
            else:
                for token in tokens:
                    counts[token] += weight  # type: ignore[assignment]
        for term in counts:
            if term not in vocabulary:
                vocabulary[term] = len(vocabulary)
        ids.append(row_id)
        pages.append(page)
        lengths.append(size)
        terms.extend(map(vocabulary.__getitem__, counts))
        rows.extend(repeat(row, len(counts)))
        freq.extend(counts.values())
    stored = index_sizes(db, source.table, ids)
    exact = all(stored.get(i) == n for i, n in zip(ids, lengths, strict=True))
    return _Document(
        np.array(ids, np.int64),
        np.array(pages, np.int64),
        np.array(lengths, np.float64),
        np.array(terms, np.int32),
        np.array(rows, np.int32),
        np.array(freq, np.float32),
        exact,
    )


def _build(
    key: tuple[int, int, int],
    signatures: dict[int, tuple[object, ...]],
    parts: dict[int, _Document],
    vocabulary: dict[str, int],
) -> _Index:
    docs = list(parts.items())
    sizes = [len(d.ids) for _, d in docs]
    offsets = np.cumsum([0, *sizes])[:-1]

    def joined(arrays: list[np.ndarray], empty: np.ndarray) -> np.ndarray:
        return np.concatenate(arrays) if arrays else empty

    ids = joined([d.ids for _, d in docs], np.zeros(0, np.int64))
    owners = joined(
        [np.full(n, doc_id, np.int64) for (doc_id, _), n in zip(docs, sizes, strict=True)],
        np.zeros(0, np.int64),
    )
    pages = joined([d.pages for _, d in docs], np.zeros(0, np.int64))
    lengths = joined([d.lengths for _, d in docs], _NO_FREQ)
    terms = joined([d.terms for _, d in docs], _NO_ROWS)
    rows = joined(
        [d.rows.astype(np.int64) + off for (_, d), off in zip(docs, offsets, strict=True)],
        np.zeros(0, np.int64),
    )
    freq = joined([d.freq for _, d in docs], np.zeros(0, np.float32))
    # Rows in id order: several-token phrases come back from FTS5 by id.
    by_id = np.argsort(ids, kind="stable")
    rank = np.empty_like(by_id)
    rank[by_id] = np.arange(len(ids))
    ids, owners, pages, lengths = ids[by_id], owners[by_id], pages[by_id], lengths[by_id]
    rows = rank[rows].astype(np.int32) if len(rows) else _NO_ROWS
    order = np.argsort(terms, kind="stable")
    starts = np.searchsorted(terms[order], np.arange(len(vocabulary) + 1))
    avgdl = float(lengths.sum()) / len(ids) if len(ids) else 1.0
    exact = all(d.exact for _, d in docs)
    return _Index(
        key, signatures, parts, vocabulary, ids, owners, pages, lengths, starts,
        rows[order], freq[order], avgdl, exact,
    )  # fmt: skip
