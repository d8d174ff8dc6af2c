"""Hybrid text search: sqlite-vec KNN plus FTS5 BM25, fused, aggregated to pages.

Chunks are found three ways (dense vectors, BM25 over chunks, exact identifiers), and
pages a fourth (BM25 over whole pages). Reciprocal-rank fusion combines the lists; a page
ranks by its best evidence (plus a little for a second supporting chunk), nudged by what
the library knows: the product the question names.
Each page carries the regions that support the query and a calibrated confidence.
"""

from __future__ import annotations

import math
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import apsw
import numpy as np

from app.library.embedding import Embedder
from app.library.layout import is_contents_page, is_history_page
from app.library.models import DocumentInfo, StoredChunk, TextLine
from app.library.revisions import revisions
from app.library.store import Store
from app.library.text_queries import (
    add_vocabulary_views,
    bm25_chunk_ids,
    bm25_pages,
    chunk_ids_matching,
    chunk_term_documents,
    chunk_texts_matching,
    documents_matching,
    ocr_page_texts,
    open_reader,
    page_term_counts,
    page_term_documents,
    page_vocabulary,
    pages_per_document,
)
from app.library.textquality import lexicon_knows
from app.library.vector_rows import database_version
from app.retrieval import line_index
from app.retrieval.fusion import RRF_K, reciprocal_rank
from app.retrieval.lexical import CHUNKS, PAGES, LexicalIndex
from app.retrieval.query import (
    CODE_WORD,
    QueryAnalysis,
    alias_map,
    analyse,
    code_key,
    fts_phrases,
    fts_query,
    index_term,
    is_code,
    kind_names,
    measure_words,
    product_names,
    stem,
    stems_of,
    tokenize,
)
from app.retrieval.ranker import Candidate, reciprocal
from app.retrieval.ranker import score as ranker_score
from app.retrieval.regions import (
    LineTerms,
    Region,
    idf_weights,
    select_regions,
)
from app.retrieval.spelling import Vocabulary, corrections, other_spelling, respelt
from app.retrieval.terms import (
    OcrVocabulary,
    code_variants,
    expansions,
    one_off,
    term_filter,
    word_stems,
)
from app.retrieval.units import (
    VAGUE_BESIDE,
    gives_quantity,
    printed_values,
    quantity_keys,
    use_cache_folder,
)
from app.retrieval.vectors import Hit, VectorIndex

_T = TypeVar("_T")
# What names each manual in a question, by document id (``product_names``, ``kind_names``),
# and how it is read from the documents and the pages that print a word.
Names = dict[int, frozenset[str]]
_Naming = Callable[[Sequence[DocumentInfo], Callable[[str], Mapping[int, int]]], Names]
# A word that may be two run together ("microSD"): letters only, five or more.
_SPLITTABLE = re.compile(r"\b[A-Za-z]{5,}\b")


def _written_as(word: str, phrase: str) -> str:
    """``word``'s letters, in its case, with the digits of ``phrase`` (the index's tokens of
    a printed form, "bln 012tc1"), split as the phrase is with hyphens: "BLN012TC1" ->
    "BLN-012TC1", "E5" -> "E05" (its number as the manual prints it)."""
    letters = iter(c for c in word if c.isalpha())
    return "".join("-" if c == " " else next(letters) if c.isalpha() else c for c in phrase)


# The rarest question words whose printed quantities the library is asked about.
MAX_SALIENT = 6
# A word asks for the quantity the library prints beside it when at least this share of
# its lines print one ("Fuse 20A", "Fuse rated current (A)").
BESIDE_SHARE = 0.4
# A code this many manuals print names an interface or a standard, not equipment.
WIDESPREAD_MANUALS = 3
# A table cell of this many words is a sentence, not a column heading (``header_band``).
HEADING_WORDS = 6
# Quoted lines whose vectors a search keeps (``TextSearch.embed_lines``).
LINE_CACHE = 256


@dataclass(frozen=True, slots=True)
class ChunkHit:
    chunk_id: int
    score: float
    text: str
    heading: str
    dense: float  # cosine similarity to the query (0 when not a dense hit)


@dataclass(frozen=True, slots=True)
class PageHit:
    document_id: int
    file_name: str
    title: str
    page: int
    score: float
    confidence: float
    chunks: tuple[ChunkHit, ...]
    regions: tuple[Region, ...]


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: QueryAnalysis
    pages: tuple[PageHit, ...]
    confidence: float  # of the best page: how sure we are the library answers this
    timings: dict[str, float] = field(default_factory=dict)
    candidates: tuple[Candidate, ...] = ()  # the re-ranked pages with their features
    query_vector: np.ndarray | None = None  # the question's embedding, for answer scoring


class TextSearch:
    """Hybrid search over one library's chunks and pages.

    ``candidates`` chunks come from each of the dense and full-text lists (120: at 60 the
    right page of 5 of the 41 answerable trades questions was not among the re-scored
    pages, at 120 of 4; key facts rose on the trades and held-out development sets with
    Hit@1 unchanged, and 200 ranked worse on the first development set); the best
    ``rerank_depth`` pages are re-scored on all their evidence. On the four development
    sets (101 answerable questions) the first stage puts a right page 9th or lower for
    three questions, and re-scoring more pages lifts none of them into the first three:
    Hit@1 0.752 and Hit@3 0.921 re-scoring 10, 15, 20 or 30 pages, 0.713 and 0.891
    re-scoring 5 (``bench/fit_ranker.py --cache DIR --depth 30``). At 100k chunks a search
    takes 13-16 ms at p50 re-scoring 10 pages (``bench/search_latency.py --keep DIR
    --no-minilm``, three runs), most of it re-scoring: the pages' lines are read with the
    terms the library stored for them at import (``line_index``), not tokenised again.

    The question's embedding runs in a thread beside its analysis and BM25, and so does
    the vector search of a library large enough to keep its vectors in memory: at 100k
    chunks, p50 36 ms against 38 with the vector search in line (three runs each, before
    BM25 moved into memory). A smaller library's vector search runs on the store's
    connection, so it follows the embedding on this thread (``VectorIndex.detached``).
    A large library's BM25 is scored in memory (``lexical``); a small one's by FTS5, whole
    pages on a second connection beside chunks (chunks on a third connection and thread
    slowed the other two more than it saved, on two cores).
    """

    def __init__(
        self, store: Store, embedder: Embedder, candidates: int = 120, rerank_depth: int = 10
    ) -> None:
        self.store = store
        self.rerank_depth = rerank_depth
        self._pages_seen: dict[tuple[int, int], list[StoredChunk]] = {}
        self._lines_seen: dict[tuple[int, int], list[TextLine]] = {}
        self._vectors_seen: dict[int, np.ndarray | None] = {}
        self.embedder = embedder
        self.candidates = candidates
        self.vectors = VectorIndex(store)
        self.chunk_lexical = LexicalIndex(store, CHUNKS)
        self.page_lexical = LexicalIndex(store, PAGES)
        self._names: tuple[tuple[tuple[int, str], ...], Names] | None = None
        self._kinds: tuple[tuple[tuple[int, str, str], ...], Names] | None = None
        self._ocr: tuple[tuple[int, ...], OcrVocabulary] | None = None
        self._readers: list[apsw.Connection] = []  # read-only, for the full-text queries
        self._pool: ThreadPoolExecutor | None = None
        self._beside: dict[tuple[int, str], tuple[str, ...]] = {}
        # What the last search read of the library, kept while it is unchanged (_refresh).
        self._version: tuple[int, int, int] | None = None
        self._documents: list[DocumentInfo] = []
        self._total: tuple[tuple[int, int, int], int] | None = None  # (version, chunks)
        self._chunk_df: dict[str, int | None] = {}
        self._code_manuals: dict[str, int] = {}  # code -> manuals printing it
        self._phrase_manuals: dict[str, int] = {}  # phrase of index tokens -> manuals
        self._burst: dict[str, float] = {}
        self._vocabulary: Vocabulary | None = None
        # Per (document id, import time): what it prints, kept while it is in the library.
        self._printed: dict[tuple[int, str], frozenset[str]] = {}
        self._ocr_words: dict[tuple[int, str], frozenset[str]] = {}
        self._line_vectors: dict[str, np.ndarray] = {}  # embed_lines, oldest first
        if store.library_dir is not None:
            use_cache_folder(store.library_dir / "cache" / "units")
        add_vocabulary_views(store.db)

    def search(
        self, text: str, k: int = 10, documents: Sequence[int] | None = None
    ) -> SearchResult:
        """The ``k`` best pages for a question, optionally within some documents."""
        timings: dict[str, float] = {}
        self._pages_seen, self._lines_seen, self._vectors_seen = {}, {}, {}
        self._line_records: dict[str, str] = {}  # a read line's stored terms, by its text
        t0 = time.perf_counter()
        self._refresh()
        # The question's embedding and nearest chunks need nothing of its analysis: they
        # run beside it, and beside the full-text queries, in a thread of their own. A
        # small library's vector search runs on the store's connection, which the
        # full-text queries use meanwhile: it waits for the embedding, on this thread.
        knn = self.vectors.searcher()
        beside = self.vectors.detached()
        nearest = self._in_thread(self._dense, text, knn if beside else None, timings)
        # A misspelt word ("prpoane") is searched as the library's word ("propane"), and
        # the question embedded again (only then: the check runs beside the embedding).
        fixes = self.corrections(text)
        if fixes:
            nearest()
            text = respelt(text, fixes)
            nearest = self._in_thread(self._dense, text, knn if beside else None, timings)
        docs = {d.id: d for d in self._documents}
        query = self._analyse(text)
        allowed = set(documents) if documents else None
        idf = self._idf(query.terms)
        aliases, misread = expansions(query.terms, self._ocr_vocabulary(docs), self._pages_with)
        timings["analyse"] = time.perf_counter() - t0
        # BM25 over whole pages and over chunks: a large library's in memory (lexical.py),
        # a small one's by FTS5 (as fast), whole pages on a second connection beside.
        t3 = time.perf_counter()
        phrases = fts_phrases([t for t in query.terms if idf.get(t, 0) > 0.05], misread)
        match = " OR ".join(f'"{p}"' for p in phrases)
        size = self._chunk_total()
        in_memory = self.page_lexical.top(self.store.db, phrases, self.candidates, size)
        pending = None
        if in_memory is None:
            pending = self._side_query(_bm25_pages, match, self.candidates, reader=0)
        best = self.chunk_lexical.top(self.store.db, phrases, self.candidates, size)
        if best is not None:
            lexical = [chunk_id for chunk_id, _, _ in best]
        else:
            lexical = _bm25_chunks(self.store.db, match, self.candidates)
        idents = self._identifier_chunks(query)
        # What the question asks for is read while the vector search (and, in a small
        # library, whole-page BM25) finishes: BM25 does not need it, the ranking does.
        t5 = time.perf_counter()
        query = replace(query, quantities=self.asked_quantities(query, idf))
        asking = time.perf_counter() - t5
        timings["analyse"] += asking
        if pending is not None:
            page_ranks = pending()
        else:
            page_ranks = {(doc, page): r for r, (_, doc, page) in enumerate(in_memory or ())}
        page_lex = {
            key: rank
            for key, rank in page_ranks.items()
            if key[0] in docs and (allowed is None or key[0] in allowed)
        }
        timings["bm25"] = time.perf_counter() - t3 - asking
        qvec, dense = nearest()
        if dense is None:
            dense = self._knn(knn, qvec, timings)

        t4 = time.perf_counter()
        ids = list(dict.fromkeys([c for c, _ in dense] + lexical + idents))
        places = {
            cid: place
            for cid, place in self._places(ids).items()
            # A manual committed by another process after ``docs`` was read is left to
            # the next search (its pages would have no document to name).
            if place[0] in docs and (allowed is None or place[0] in allowed)
        }
        dense_ids = [c for c, _ in dense]
        fused = reciprocal_rank([dense_ids, lexical, idents], [1.0, 1.0, 0.5])
        pages = self._rank_pages(query, docs, places, fused, page_lex)
        evidence_idf = _without_product_terms(idf, query, docs)
        # "how *long*", "how *many*": words of how the question asks, not of its answer.
        measures = measure_words(query.text)
        evidence_idf = {t: w for t, w in evidence_idf.items() if t not in measures} or evidence_idf
        # What each line holds, read once (from the library's stored terms, where read).
        terms = LineTerms({stem(t) for t in idf}, aliases, self._line_records)
        lists = CandidateLists(
            page_lex, _page_ranks(lexical, places), _page_ranks(dense_ids, places)
        )
        pages, candidates = self._rerank(
            query,
            docs,
            pages[: self.rerank_depth],
            qvec,
            {t: w * self.burstiness(t) for t, w in evidence_idf.items()},
            terms,
            lists,
        )
        # Cosines of the candidate chunks on the pages returned (re-ranking read their
        # vectors): a page's confidence and each chunk hit's similarity.
        shown = {key for key, _ in pages[:k]}
        on_shown = [c for c, place in places.items() if place in shown]
        cosine = self._cosines(qvec, on_shown)
        hits = self._page_hits(query, docs, pages[:k], places, fused, cosine, idf, terms)
        timings["rank"] = time.perf_counter() - t4
        timings["total"] = time.perf_counter() - t0
        confidence = hits[0].confidence if hits else 0.0
        return SearchResult(query, tuple(hits), confidence, timings, tuple(candidates), qvec)

    def analyse(self, text: str) -> QueryAnalysis:
        """A question as a search reads it (``query.analyse``: its terms, codes, asked
        quantities and the library's products it names), without searching."""
        self._refresh()
        return self._analyse(text)

    def _analyse(self, text: str) -> QueryAnalysis:
        docs = self._documents
        return analyse(text, docs, self.product_names(docs), self.kind_names(docs))

    def _refresh(self) -> None:
        """Read the document list again, and forget the terms' chunk counts, when the
        library has changed since the last search (an import or removal, by this
        connection or another: ``database_version``). What a manual prints stays known
        while it is in the library (``printed``)."""
        version = database_version(self.store.db)
        if version != self._version:
            self._version = version
            self._documents = self.store.list_documents()
            self._vocabulary = None
            self._chunk_df = {}
            self._code_manuals = {}
            self._phrase_manuals = {}
            self._burst = {}
            kept = {(d.id, d.imported_at) for d in self._documents}
            self._printed = {k: v for k, v in self._printed.items() if k in kept}

    def warm(self) -> None:
        """Read what a large library's first search would wait for: the vectors and the
        full-text postings it keeps in memory."""
        size = self._chunk_total()
        self.vectors.searcher()
        self.chunk_lexical.warm(size)
        self.page_lexical.warm(size)

    def _chunk_total(self) -> int:
        """The library's chunk count, counted again only when the database has changed
        (counting 100k chunks takes 0.4 ms, and a search asks three times)."""
        version = database_version(self.store.db)
        if self._total is None or self._total[0] != version:
            self._total = (version, self.store.chunk_count())
        return self._total[1]

    def product_names(self, documents: Sequence[DocumentInfo]) -> Names:
        """Each document's product names (``query.product_names``), a word of a name
        counting only when its manual holds most of the pages that print it; kept until
        the documents change."""
        key = tuple((d.id, d.profile.product) for d in documents)
        if self._names is None or self._names[0] != key:
            self._names = (key, self._one_per_manual(documents, product_names))
        return self._names[1]

    def kind_names(self, documents: Sequence[DocumentInfo]) -> Names:
        """The word that says what kind of thing each document's product is, where one
        names it (``query.kind_names``); kept until the documents change."""
        key = tuple((d.id, d.title, d.file_name) for d in documents)
        if self._kinds is None or self._kinds[0] != key:
            self._kinds = (key, self._one_per_manual(documents, kind_names))
        return self._kinds[1]

    def _one_per_manual(self, documents: Sequence[DocumentInfo], name: _Naming) -> Names:
        """``name`` (``product_names``, ``kind_names``) read over one document per manual,
        the newest revision of it among ``documents``, with only their pages counted, and
        what it finds given to every revision. A manual's older revision prints its words
        as much as the newest does and bears its title, but it is no other manual to tell
        it from: counted as one, the radio's second revision would leave "the radio" and
        "Orbit" naming nothing."""
        of = {r.document_id: (r.manual_id, r.revision) for r in revisions(self.store)}
        place = {d.id: of.get(d.id, (-d.id, 0)) for d in documents}  # (manual, revision)
        newest: dict[int, DocumentInfo] = {}
        for doc in documents:
            manual, revision = place[doc.id]
            held = newest.get(manual)
            if held is None or place[held.id][1] < revision:
                newest[manual] = doc
        ids = {d.id for d in newest.values()}

        def pages_with(word: str) -> dict[int, int]:
            return {k: n for k, n in self._manual_pages_with(word).items() if k in ids}

        found = name(list(newest.values()), pages_with)
        out = {}
        for doc in documents:
            head = newest[place[doc.id][0]].id
            if head in found:
                out[doc.id] = found[head]
        return out

    def printed(self, doc_id: int) -> frozenset[str]:
        """What a manual prints anywhere: the stems of its words and the quantities it
        prints a value of (``query.stems_of``). A question asking for a quantity its manual
        never gives, nor names, cannot be answered from it. Read once per manual (a
        manual imported again is read again)."""

        def read() -> frozenset[str]:
            found: set[str] = set()
            for text in self.store.page_texts(doc_id):
                # Read once: not worth the shared caches.
                found |= stems_of.__wrapped__(text) | quantity_keys.__wrapped__(text)
            return frozenset(found)

        return self._per_manual(self._printed, doc_id, read)

    def ocr_words(self, doc_id: int) -> frozenset[str]:
        """The words of a manual's pages read by OCR, lower-cased (any of them may be a
        misreading); read once per manual, as ``printed`` is."""

        def read() -> frozenset[str]:
            rows = ocr_page_texts(self.store.db, [doc_id])
            return frozenset(w for r in rows for w in tokenize(r[2] or ""))

        return self._per_manual(self._ocr_words, doc_id, read)

    def unprinted_codes(self, codes: Sequence[str]) -> tuple[str, ...]:
        """Those of ``codes`` that no manual of the library prints, however it writes them
        ("FT-60", "FT 60", "ft60"; ``code_variants``), nor may print misread: a page read
        by OCR holds no word of the same length with one lookalike character ("HFT-9O",
        ``terms.one_off``). Asked of the page index, so no manual's pages are read: a few
        milliseconds at most on the development corpora."""
        self._refresh()
        scanned = [d.id for d in self._documents if d.ocr_pages]
        missing = []
        for code in codes:
            if self._manuals_printing(code):
                continue
            key = code_key(code)
            if any(one_off(key, {code_key(w) for w in self.ocr_words(d)}) for d in scanned):
                continue
            missing.append(code)
        return tuple(missing)

    def widespread_codes(self, codes: Sequence[str]) -> tuple[str, ...]:
        """Those of ``codes`` that at least ``WIDESPREAD_MANUALS`` manuals print (however
        they write them): an interface or a standard ("RS485", "USB2.0"), which names no
        equipment a question could be about."""
        self._refresh()
        return tuple(c for c in codes if self._manuals_printing(c) >= WIDESPREAD_MANUALS)

    def _manuals_printing(self, code: str) -> int:
        """How many manuals print a code, however they write it (``code_variants``; a bare
        number also as the start of a word: "750" in "750W"); asked of the page index once
        per code and version of the library (a question's codes are asked about twice:
        ``widespread_codes``, then ``unprinted_codes``)."""
        if code not in self._code_manuals:
            match = " OR ".join(f'"{v}"' for v in code_variants(code))
            if code.isdigit():
                match = f'"{code}"*'  # a bare number, printed with its unit too ("750W")
            self._code_manuals[code] = documents_matching(self.store.db, match) if match else 0
        return self._code_manuals[code]

    def unknown_words(self, words: Sequence[str]) -> tuple[str, ...]:
        """Those of ``words`` no manual of the library prints in any form (``known``)."""
        held = self.known([w.lower() for w in words])
        return tuple(w for w in words if w.lower() not in held)

    def unknown_names(self, words: Sequence[str]) -> tuple[str, ...]:
        """Those of ``words`` that name something neither the library nor English knows:
        no manual prints them (``unknown_words``), the English lexicon lacks them or a
        part of them ("Heathkit", "Sur-Gard"; not "Siemens" or "Customer"), and none is one slip of
        typing from a word the manuals print (``corrections``: "Quectell" is Quectel)."""
        return tuple(
            w
            for w in self.unknown_words(words)
            if not all(lexicon_knows(part) for part in w.lower().split("-") if part)
            and not self.corrections(w)
        )

    def _per_manual(
        self,
        cache: dict[tuple[int, str], frozenset[str]],
        doc_id: int,
        read: Callable[[], frozenset[str]],
    ) -> frozenset[str]:
        """``read()`` of a manual, kept while the same import of it is in the library."""
        imported = next((d.imported_at for d in self._documents if d.id == doc_id), "")
        key = (doc_id, imported)
        if key not in cache:
            cache[key] = read()
        return cache[key]

    def _manual_pages_with(self, word: str) -> dict[int, int]:
        """How many pages of each manual print a word (none for a word the index cannot
        be asked for)."""
        if not word.replace("-", "").isalnum():
            return {}
        return pages_per_document(self.store.db, '"' + word.replace("-", " ") + '"')

    def _places(self, ids: Sequence[int]) -> dict[int, tuple[int, int]]:
        """(document id, page) of each of some chunks: a large library's from the
        full-text index it keeps in memory, a small one's from the database."""
        found = self.chunk_lexical.places(ids, self._chunk_total())
        return self.store.chunk_places(ids) if found is None else found

    def _page_chunks(self, doc_id: int, page: int) -> list[StoredChunk]:
        """A page's chunks, read once per search (re-rank and hits both need them)."""
        key = (doc_id, page)
        if key not in self._pages_seen:
            self._pages_seen[key] = self.store.pages_chunks([key], line_index.VERSION)[key]
        return self._pages_seen[key]

    def _page_lines(self, doc_id: int, page: int) -> list[TextLine]:
        """A page's lines once each, read once per search (its chunks', or the page's own
        when it has no chunk with lines)."""
        key = (doc_id, page)
        if key not in self._lines_seen:
            chunks = self._page_chunks(doc_id, page)
            for chunk in chunks:
                if chunk.terms is not None:
                    records = line_index.split_record(chunk.terms, len(chunk.lines)) or ()
                    for line, record in zip(chunk.lines, records, strict=False):
                        self._line_records[line.text] = record
            lines = [ln for c in chunks for ln in c.lines]
            self._lines_seen[key] = _dedupe(lines) or list(self.store.page_lines(doc_id, page))
        return self._lines_seen[key]

    def _read_pages(self, keys: Sequence[tuple[int, int]]) -> None:
        """Read the chunks of the pages not yet read this search, with their lines' stored
        terms, in one query."""
        missing = [key for key in keys if key not in self._pages_seen]
        self._pages_seen.update(self.store.pages_chunks(missing, line_index.VERSION))

    def asked_quantities(self, query: QueryAnalysis, idf: dict[str, float]) -> tuple[str, ...]:
        """The quantities a question asks for: those its words name (the unit registry:
        "torque", "volts"), and those the library prints beside its rarest words. In a
        library whose lines read "Fuse 20A" and "Fuse Rated Current(A)", a question about
        a fuse asks for a current; nothing here knows what a fuse is."""
        if query.quantities:
            return query.quantities  # the question names them ("what voltage")
        found: dict[str, None] = {}
        asked = [t for t in query.asked if t in idf]
        salient = sorted(asked, key=lambda t: -idf[t])[:MAX_SALIENT]
        for term in salient:
            if term.isalpha() and len(term) > 2:
                found.update(dict.fromkeys(self._quantities_beside(term)))
        return tuple(found)

    def _quantities_beside(self, term: str) -> tuple[str, ...]:
        """Quantity keys printed on (or right after) the library's lines holding ``term``,
        when a good share of those lines print one; cached until the documents change."""
        key = (self._chunk_total(), term)
        if key in self._beside:
            return self._beside[key]
        root = stem(term)
        quick = term_filter(frozenset([root]))  # most lines cannot hold it: not tokenised
        rows = chunk_texts_matching(self.store.db, fts_query([term]), 60)
        counts: dict[str, int] = defaultdict(int)
        lines_with = 0
        for (text,) in rows:
            lines = text.splitlines()
            for i, line in enumerate(lines):
                if not quick.may_hold(line) or root not in word_stems(line):
                    continue
                lines_with += 1
                for quantity in quantity_keys(line) | quantity_keys(" ".join(lines[i + 1 : i + 3])):
                    counts[quantity] += 1
        share = max(lines_with, 1)
        found = tuple(
            k
            for k, n in counts.items()
            if n >= 3 and n / share >= BESIDE_SHARE and k not in VAGUE_BESIDE
        )
        self._beside[key] = found
        return found

    # ---- candidate lists -------------------------------------------------------------
    def corrections(self, text: str) -> dict[str, str]:
        """The words of ``text`` no manual prints that are one slip of typing from a word
        the manuals print, each with that word (``spelling.corrections``), or that the
        manuals spell the British or American way instead (``dialect_spellings``), its
        codes no manual prints as written but one prints another way (``code_spellings``),
        and its words that a manual prints as two (``split_spellings``)."""
        fixes = corrections(
            text, index_term, self._held, self._spelling, self._surface, lexicon_knows
        )
        return {
            **self.split_spellings(text),
            **fixes,
            **self.dialect_spellings(text),
            **self.code_spellings(text),
        }

    def split_spellings(self, text: str) -> dict[str, str]:
        """The words of ``text`` that no manual prints and English does not know, each,
        lower-cased, with the two English words a manual prints side by side that it is
        made of: "microSD" -> "micro sd" when the board's manual prints "micro SD card". Of
        several ways to split a word, the one most manuals print (then the first). A word
        English knows ("sometimes") is left as written: a page printing "some times" says
        nothing of it; so is one whose parts are no words ("pressur ised", as a scan may
        print a word OCR split)."""
        out: dict[str, str] = {}
        for word in dict.fromkeys(_SPLITTABLE.findall(text)):
            low = word.lower()
            if low in out or self._held(low) or lexicon_knows(low):
                continue
            printed = [
                f"{low[:i]} {low[i:]}"
                for i in range(2, len(low) - 1)
                if lexicon_knows(low[:i])
                and lexicon_knows(low[i:])
                and self._phrase_printed(f"{low[:i]} {low[i:]}")
            ]
            if printed:
                out[low] = max(printed, key=lambda phrase: self._phrase_manuals[phrase])
        return out

    def dialect_spellings(self, text: str) -> dict[str, str]:
        """The words of ``text`` no manual prints, each, lower-cased, with its British or
        American spelling when a manual prints that (``spelling.other_spelling``): "colour"
        -> "color" in a library of American manuals, "color" -> "colour" in a British one.
        A word the library prints stays as written, whichever way it is spelled."""
        out: dict[str, str] = {}
        for word in dict.fromkeys(re.findall(r"[A-Za-z]+", text)):
            low = word.lower()
            other = other_spelling(low) if low not in out else None
            if other and other.isalpha() and not self._held(low) and self._held(other):
                out[low] = other
        return out

    def code_spellings(self, text: str) -> dict[str, str]:
        """The codes of ``text`` (letters and digits in one word) that no manual prints as
        written but one prints another way (``code_variants``), each, lower-cased, with
        the way it is printed: "BG-96" -> "BG96", "BLN012TC1" -> "BLN-012TC1". A value with
        its unit ("12V") is no code."""
        values = {m.group(0).strip().lower() for m, _ in printed_values(text)}
        out: dict[str, str] = {}
        for word in dict.fromkeys(CODE_WORD.findall(text)):
            low = word.lower()
            if low in out or low in values or not is_code(word):
                continue
            first, *others = code_variants(word)
            if self._phrase_printed(first):
                continue
            # The way nearest to the written one: the fewest splits ("BLN-012TC1" before
            # "BLN-012 TC1", which a table may print too).
            others.sort(key=lambda v: v.count(" "))
            printed = next((v for v in others if self._phrase_printed(v)), None)
            if printed is not None:
                out[low] = _written_as(word, printed)
        return out

    def _phrase_printed(self, phrase: str) -> bool:
        """Whether some page prints a phrase of the index's tokens, asked once per library
        version."""
        if phrase not in self._phrase_manuals:
            self._phrase_manuals[phrase] = documents_matching(self.store.db, f'"{phrase}"')
        return self._phrase_manuals[phrase] > 0

    def _held(self, word: str) -> bool:
        """Whether some chunk holds ``word`` in any form (its count kept for ``_idf``)."""
        root = index_term(word)
        if root not in self._chunk_df:
            self._chunk_df[root] = chunk_term_documents(self.store.db, root)
        return self._chunk_df[root] is not None

    def _spelling(self) -> Vocabulary:
        """The library's indexed terms by deletion, read once per version of the library
        (at the first question holding a word no manual prints)."""
        if self._vocabulary is None:
            self._vocabulary = Vocabulary(page_vocabulary(self.store.db))
        return self._vocabulary

    def _surface(self, term: str) -> list[str]:
        """Words the manuals print that the index holds as ``term`` (from a few chunks)."""
        words: dict[str, None] = {}
        for (text,) in chunk_texts_matching(self.store.db, f'"{term}"', 5):
            for word in re.findall(r"[A-Za-z]+", text):
                if index_term(word.lower()) == term:
                    words[word.lower()] = None
        return list(words)

    def known(self, terms: Sequence[str]) -> frozenset[str]:
        """The terms some chunk of the library holds: a word in any form with the same
        stem (the index holds Porter stems: 'disarms' is known from 'disarm'), a code by
        each of its parts."""
        found = set()
        for term in terms:
            parts = _index_words(term)
            if parts and all(self._in_vocabulary(p) for p in parts):
                found.add(term)
        return frozenset(found)

    def _in_vocabulary(self, word: str) -> bool:
        return chunk_term_documents(self.store.db, index_term(word.lower())) is not None

    def _idf(self, terms: Sequence[str]) -> dict[str, float]:
        total = max(self._chunk_total(), 1)
        freq: dict[str, int] = {}
        for term in terms:
            # A term with a symbol ("aux+") counts as unseen, so it weighs most: it is
            # more specific than the bare word the index holds.
            parts = term.replace("-", " ").replace(".", " ").replace("/", " ").split()
            counts = []
            for part in parts:
                root = index_term(part)
                if root not in self._chunk_df:
                    self._chunk_df[root] = chunk_term_documents(self.store.db, root)
                counts.append(self._chunk_df[root] or 0)
            freq[term] = min(counts) if counts else 0
        return idf_weights(terms, freq, total)

    def _ocr_vocabulary(self, docs: dict[int, DocumentInfo]) -> OcrVocabulary | None:
        """The words of the OCR'd pages (None when there are none), read once per set of
        documents."""
        key = tuple(sorted(d.id for d in docs.values() if d.ocr_pages))
        if not key:
            return None
        if self._ocr is None or self._ocr[0] != key:
            rows = ocr_page_texts(self.store.db, key)
            vocabulary = OcrVocabulary((r[2] or "" for r in rows), ((r[0], r[1]) for r in rows))
            self._ocr = (key, vocabulary)
        return self._ocr[1]

    def burstiness(self, term: str) -> float:
        """How much a question word says about where the answer is, by how the library
        prints it (Church and Gale's burstiness): a topic's word comes back on the pages
        that hold it ("press" 5 times a page), a word of how a question is put ("puts",
        "instead", "keep") is printed once where it is printed at all. A quarter for once
        per page, three quarters for twice, all of it from about three times.

        A code or a number ("374", "p9", "6x4") keeps all of its weight: a table prints a
        code once, on the one row that explains it, and a question names it to find that
        row. Measured beside the version that weighed them too: one trades question's
        right page rose from fifth to third, no other record of ``cross_corpus.py``
        changed."""
        if term not in self._burst:
            code = any(ch.isdigit() for ch in term)
            counts = None if code else page_term_counts(self.store.db, index_term(term))
            ratio = counts[1] / counts[0] if counts else 4.0
            self._burst[term] = min(1.0, max(0.25, 0.25 + math.log(ratio) / math.log(4)))
        return self._burst[term]

    def _pages_with(self, word: str) -> int:
        return page_term_documents(self.store.db, index_term(word)) or 0

    def _identifier_chunks(self, query: QueryAnalysis) -> list[int]:
        """Chunks holding the question's codes and values verbatim, most matches first."""
        counts: dict[int, int] = defaultdict(int)
        for ident in query.identifiers:
            match = fts_query([ident])
            if not match:
                continue
            for rowid in chunk_ids_matching(self.store.db, match, 200):
                counts[rowid] += 1
        return sorted(counts, key=lambda c: -counts[c])[: self.candidates]

    def _dense(
        self,
        text: str,
        knn: Callable[[np.ndarray, int], list[Hit]] | None,
        timings: dict[str, float],
    ) -> tuple[np.ndarray, list[Hit] | None]:
        """The question's embedding and, given ``knn``, its ``candidates`` nearest chunks."""
        t1 = time.perf_counter()
        qvec = self.embedder.embed([text])[0]
        timings["embed"] = time.perf_counter() - t1
        return qvec, None if knn is None else self._knn(knn, qvec, timings)

    def _knn(
        self,
        knn: Callable[[np.ndarray, int], list[Hit]],
        qvec: np.ndarray,
        timings: dict[str, float],
    ) -> list[Hit]:
        t2 = time.perf_counter()
        dense = knn(qvec, self.candidates)
        timings["knn"] = time.perf_counter() - t2
        return dense

    def _in_thread(self, fn: Callable[..., _T], *args: Any) -> Callable[[], _T]:
        """Run ``fn(*args)`` in a thread of the search's own while this thread goes on;
        returns a function that waits for the result. An in-memory library (tests) runs
        it at once."""
        if self.store.path is None:
            done = fn(*args)
            return lambda: done
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=3, thread_name_prefix="lantern-search")
        return self._pool.submit(fn, *args).result

    def _side_query(self, fn: Callable[..., _T], *args: Any, reader: int) -> Callable[[], _T]:
        """Run ``fn(connection, *args)`` on read-only connection number ``reader`` in a
        thread of its own (SQLite runs without the interpreter lock, so the full-text
        queries overlap each other and the vector search); returns a function that waits
        for the result. An in-memory library has no second connection: there it runs on
        the store's, at once."""
        if self.store.path is None:
            done = fn(self.store.db, *args)
            return lambda: done
        while len(self._readers) <= reader:
            self._readers.append(open_reader(self.store.path))
        return self._in_thread(fn, self._readers[reader], *args)

    def embed_lines(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of a few short texts (quoted lines), each embedded once while this
        search lives: an agent's later searches for one question quote many of the same
        lines (136 line embeddings over the development sets' 184 questions, 75 of them
        different). The ``LINE_CACHE`` most recent are kept."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._line_vectors))
        fresh = dict(zip(missing, self.embedder.embed(missing), strict=True)) if missing else {}
        out = np.asarray(
            [fresh[t] if t in fresh else self._line_vectors[t] for t in texts], dtype=np.float32
        )
        self._line_vectors.update(fresh)
        while len(self._line_vectors) > LINE_CACHE:
            del self._line_vectors[next(iter(self._line_vectors))]
        return out

    def close(self) -> None:
        """Close the second connection and its thread (the store is the caller's)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        for reader in self._readers:
            reader.close()
        self._readers = []

    def _cosines(self, qvec: np.ndarray, ids: list[int]) -> dict[int, float]:
        return {cid: float(vec @ qvec) for cid, vec in self._vectors(ids).items()}

    def _vectors(self, ids: list[int]) -> dict[int, np.ndarray]:
        """Chunks' exact vectors, each read once per search (missing ids left out)."""
        missing = [cid for cid in ids if cid not in self._vectors_seen]
        if missing:
            found = self.vectors.get(missing)
            self._vectors_seen.update({cid: found.get(cid) for cid in missing})
        return {c: v for c in ids if (v := self._vectors_seen[c]) is not None}

    # ---- ranking ---------------------------------------------------------------------
    def _rank_pages(
        self,
        query: QueryAnalysis,
        docs: dict[int, DocumentInfo],
        places: dict[int, tuple[int, int]],
        fused: dict[int, float],
        page_lex: dict[tuple[int, int], int],
    ) -> list[tuple[tuple[int, int], float]]:
        per_page: dict[tuple[int, int], list[float]] = defaultdict(list)
        for cid, place in places.items():
            per_page[place].append(fused.get(cid, 0.0))
        for key in page_lex:
            per_page.setdefault(key, [])
        scored = []
        for key, scores in per_page.items():
            scores.sort(reverse=True)
            score = (scores[0] if scores else 0.0) + 0.3 * sum(scores[1:3])
            if key in page_lex:
                score += 0.8 / (RRF_K + page_lex[key])
            scored.append((key, score * _document_prior(query, docs.get(key[0]))))
        scored.sort(key=lambda kv: -kv[1])
        return scored

    def _rerank(
        self,
        query: QueryAnalysis,
        docs: dict[int, DocumentInfo],
        ranked: list[tuple[tuple[int, int], float]],
        qvec: np.ndarray,
        idf: dict[str, float],
        terms: LineTerms,
        lists: CandidateLists,
    ) -> tuple[list[tuple[tuple[int, int], float]], list[Candidate]]:
        """Re-score the best pages on all their evidence (``ranker``): where the question's
        terms meet within a few lines, the page's closest chunk in meaning, its place in
        each candidate list, the product named, the quantity asked for."""
        if not ranked:
            return [], []
        ocr = self._ocr_vocabulary(docs)
        scanned = ocr.keys if ocr is not None else frozenset()
        top = ranked[0][1] or 1.0
        rescored, candidates = [], []
        self._read_pages([key for key, _ in ranked])
        vectors = self._vectors([c.id for key, _ in ranked for c in self._page_chunks(*key)])
        for (doc_id, page), first in ranked:
            page_chunks = self._page_chunks(doc_id, page)
            cos = max(
                (float(vectors[c.id] @ qvec) for c in page_chunks if c.id in vectors),
                default=0.0,
            )
            texts = [ln.text for ln in self._page_lines(doc_id, page)]
            cov = page_coverage(
                page_chunks,
                texts,
                idf,
                query.identifiers,
                scanned=(doc_id, page) in scanned,
                terms=terms,
            )
            key = (doc_id, page)
            features = (
                first / top,
                cov,
                cos,
                reciprocal(lists.page_bm25.get(key)),
                reciprocal(lists.chunk_bm25.get(key)),
                reciprocal(lists.dense.get(key)),
                _product_match(query, doc_id),
                _quantity_match(query, texts),
                _identifier_share(query, texts),
            )
            candidates.append(Candidate(doc_id, page, features))
            rescored.append((key, ranker_score(features)))
        rescored.sort(key=lambda kv: -kv[1])
        return rescored, candidates

    def _page_hits(
        self,
        query: QueryAnalysis,
        docs: dict[int, DocumentInfo],
        ranked: list[tuple[tuple[int, int], float]],
        places: dict[int, tuple[int, int]],
        fused: dict[int, float],
        cosine: dict[int, float],
        idf: dict[str, float],
        terms: LineTerms,
    ) -> list[PageHit]:
        """The pages ``ranked``, each with its candidate chunks (those of ``places``) best
        first, its supporting regions and its confidence."""
        ocr = self._ocr_vocabulary(docs)
        scanned = ocr.keys if ocr is not None else frozenset()
        self._read_pages([key for key, _ in ranked])
        hits = []
        for (doc_id, page), score in ranked:
            doc = docs[doc_id]
            found = [c for c in self._page_chunks(doc_id, page) if c.id in places]
            page_chunks = sorted(found, key=lambda c: -fused.get(c.id, 0.0))
            regions = select_regions(
                self._page_lines(doc_id, page),
                idf,
                query.identifiers,
                scanned=(doc_id, page) in scanned,
                terms=terms,
            )
            best_cos = max((cosine.get(c.id, 0.0) for c in page_chunks), default=0.0)
            confidence = _confidence(best_cos, _coverage(regions, query, idf))
            hits.append(
                PageHit(
                    document_id=doc_id,
                    file_name=doc.file_name,
                    title=doc.title,
                    page=page,
                    score=round(score, 6),
                    confidence=round(confidence, 4),
                    chunks=tuple(
                        ChunkHit(
                            c.id, fused.get(c.id, 0.0), c.text, c.heading, cosine.get(c.id, 0.0)
                        )
                        for c in page_chunks[:3]
                    ),
                    regions=tuple(regions),
                )
            )
        return hits


def _bm25_pages(db: apsw.Connection, match: str, limit: int) -> dict[tuple[int, int], int]:
    """Rank (0 = best) of the ``limit`` best pages by BM25 for an FTS5 query."""
    if not match:
        return {}
    return {key: rank for rank, key in enumerate(bm25_pages(db, match, limit))}


def _bm25_chunks(db: apsw.Connection, match: str, limit: int) -> list[int]:
    """The ``limit`` best chunks by BM25 for an FTS5 query, best first."""
    return bm25_chunk_ids(db, match, limit) if match else []


@dataclass(frozen=True, slots=True)
class CandidateLists:
    """Each page's rank (0 = first) in the page BM25, chunk BM25 and dense lists."""

    page_bm25: dict[tuple[int, int], int]
    chunk_bm25: dict[tuple[int, int], int]
    dense: dict[tuple[int, int], int]


def _page_ranks(
    chunk_ids: Sequence[int], places: dict[int, tuple[int, int]]
) -> dict[tuple[int, int], int]:
    """Pages in the order their first chunk appears in a ranked chunk list."""
    ranks: dict[tuple[int, int], int] = {}
    for cid in chunk_ids:
        place = places.get(cid)
        if place is not None:
            ranks.setdefault(place, len(ranks))
    return ranks


def _product_match(query: QueryAnalysis, doc_id: int) -> float:
    if not query.products:
        return 0.0
    return 1.0 if doc_id in query.products else -1.0


def _quantity_match(query: QueryAnalysis, lines: Sequence[str]) -> float:
    """+1 when the page prints a value of a quantity the question asks for, -1 when the
    question asks for one and the page prints none, 0 when it asks for none."""
    if not query.quantities:
        return 0.0
    wanted = set(query.quantities)
    return 1.0 if any(gives_quantity(text, wanted) for text in lines) else -1.0


def _identifier_share(query: QueryAnalysis, lines: Sequence[str]) -> float:
    if not query.identifiers:
        return 0.0
    text = " ".join(lines).lower().replace(" ", "")
    found = sum(1 for i in query.identifiers if i.lower().replace(" ", "") in text)
    return found / len(query.identifiers)


def _without_product_terms(
    idf: dict[str, float], query: QueryAnalysis, docs: dict[int, DocumentInfo]
) -> dict[str, float]:
    """Term weights for judging a page's evidence. Words naming a product the question
    asks about are left out: the document prior already rewards that manual, and every
    one of its pages 'mentions' it (in headers, or not at all)."""
    names: set[str] = set()
    for doc_id in query.products:
        doc = docs.get(doc_id)
        if doc is not None:
            names |= stems_of(
                f"{doc.profile.product} {doc.title} {doc.file_name.replace('_', ' ')}"
            )
    kept = {t: w for t, w in idf.items() if stem(t) not in names}
    return kept or idf


def _index_words(term: str) -> list[str]:
    """The words the full-text index holds a term as ("aux+" -> aux, "13.8" -> 13, 8)."""
    return re.findall(r"[a-z0-9]+", term.lower())


def _document_prior(query: QueryAnalysis, doc: DocumentInfo | None) -> float:
    if doc is None:
        return 1.0
    prior = 1.0
    if query.products:
        prior *= 1.25 if doc.id in query.products else 0.6
    return prior


def _dedupe(lines: list) -> list:
    """Lines once each: a line two chunks share is stored twice with the same box."""
    return list({(line.text, line.box): line for line in lines}.values())


def window_coverage(
    lines: Sequence[str],
    idf: dict[str, float],
    identifiers: Sequence[str] = (),
    context: str = "",
    window: int = 4,
    chars: int = 320,
    aliases: dict[str, str] | None = None,
    scanned: bool = True,
    terms: LineTerms | None = None,
) -> float:
    """Best share of the query's term weight found within ``window`` consecutive lines,
    or more lines while they stay under ``chars`` characters (OCR and table cells give
    short lines), with the section headings counting for every window. ``aliases`` map
    page stems to the question stems they stand for (``terms.expansions``; unit aliases
    by default). Words split in two are looked for joined only on ``scanned`` pages: a
    text layer's words are whole. ``terms`` reads which question stems a line holds (a
    search shares one over all its terms' stems and ``aliases``, which this weighs a
    part of)."""
    total = sum(idf.values()) or 1.0
    wanted = {stem(t): w for t, w in idf.items()}
    if terms is None:
        terms = LineTerms(wanted, alias_map(list(idf)) if aliases is None else aliases)
    base = _found(stems_of(context), wanted, terms.aliases)
    # Each wanted stem is a bit: a line's stems, and a window's, are an integer (lines
    # holding the same stems share one), and a window's weight is read once per integer.
    bits = {t: 1 << i for i, t in enumerate(wanted)}
    weights = list(wanted.values())
    masks: dict[frozenset[str], int] = {}
    hits = []
    for text in lines:
        held = terms.of(text, scanned)
        mask = masks.get(held)
        if mask is None:
            mask = masks[held] = sum(bits.get(t, 0) for t in held)
        hits.append(mask)
    weighed: dict[int, float] = {}

    def weight(mask: int) -> float:
        if mask not in weighed:
            weighed[mask] = sum(w for i, w in enumerate(weights) if mask >> i & 1) / total
        return weighed[mask]

    start_mask = sum(bits[t] for t in base)
    best = weight(start_mask)
    sizes = [len(text) for text in lines]
    # A window gains nothing by starting on a line without a question term.
    for start in (i for i, mask in enumerate(hits) if mask):
        found, size = start_mask, 0
        for i in range(start, len(hits)):
            size += sizes[i]
            if i - start >= window and size > chars:
                break
            found |= hits[i]
        best = max(best, weight(found))
        if best >= 0.999:
            break
    return best


def _found(
    stems: frozenset[str], wanted: dict[str, float], aliases: dict[str, str]
) -> frozenset[str]:
    """The question stems a set of stems holds, directly or through an alias."""
    found = stems & wanted.keys()
    if aliases:
        found |= {t for a, t in aliases.items() if a in stems and t in wanted}
    return frozenset(found)


def page_coverage(
    chunks: Sequence[StoredChunk],
    lines: Sequence[str],
    idf: dict[str, float],
    identifiers: Sequence[str] = (),
    aliases: dict[str, str] | None = None,
    scanned: bool = True,
    terms: LineTerms | None = None,
) -> float:
    """Term coverage of a page: the best window over its lines with every heading as
    context, or within one table read with its heading and header row (a paragraph's own
    windows are among the page's, with less context, so they cannot score higher). A
    contents page or a revision history covers nothing (``is_contents_page``,
    ``is_history_page``)."""
    if is_contents_page(lines) or is_history_page(lines):
        return 0.0  # every line names a topic of another page
    headings = " ".join({c.heading for c in chunks})
    if terms is None:
        wanted = {stem(t) for t in idf}
        terms = LineTerms(wanted, alias_map(list(idf)) if aliases is None else aliases)
    # A contents entry names a topic where the answer is not: a contents page names them all.
    lines = [text for text in lines if not terms.contents(text)]
    best = window_coverage(lines, idf, identifiers, headings, scanned=scanned, terms=terms)
    for chunk, header, body in table_bands(chunks):
        context = " ".join([chunk.heading, *header])
        texts = [ln.text for ln in body if not terms.contents(ln.text)]
        best = max(
            best,
            window_coverage(
                texts, idf, identifiers, context, window=2, scanned=scanned, terms=terms
            ),
        )
    return best


def table_bands(
    chunks: Sequence[StoredChunk],
) -> Iterator[tuple[StoredChunk, list[str], list[TextLine]]]:
    """The table chunks of a page, each with its table's header row and its own rows
    (``header_band``). A table cut into several chunks repeats its first line in each (at
    most the first line of a header of two): the column headings are those of the
    table's first chunk, and the first row of a table without a header is read once, in
    the first chunk."""
    tables: dict[str, tuple[str, list[str]]] = {}  # by heading: first line, header
    for chunk in chunks:
        if chunk.kind != "table" or not chunk.lines:
            continue
        band, body = header_band(chunk.lines)
        first = chunk.lines[0].text
        seen = tables.get(chunk.heading)
        if seen is not None and seen[0] == first:  # the same table, continued
            band = seen[1]
            if not band and body and body[0].text == first:
                body = body[1:]
        else:
            tables[chunk.heading] = (first, band)
        yield chunk, band, body


def header_band(lines: Sequence[TextLine]) -> tuple[list[str], list[TextLine]]:
    """A table's header row (``first_band``) and the lines after it; none, and all the
    lines, when that row is no header (``no_header``)."""
    band = first_band(lines)
    if no_header(band, [ln.text for ln in lines[len(band) : len(band) + 6]]):
        return [], list(lines)
    return band, list(lines[len(band) :])


def first_band(lines: Sequence[TextLine]) -> list[str]:
    """A table's first row: every line that starts within the first line's height, as a
    multi-line header's cells do."""
    first = lines[0]
    limit = max(first.box[3], first.box[1] + 1.0)
    cut = 1
    while cut < min(len(lines), 8) and lines[cut].box[1] < limit - 0.5:
        cut += 1
    return [ln.text for ln in lines[:cut]]


def no_header(band: Sequence[str], rows: Sequence[str] = ()) -> str:
    """Why a table's first row is no header ("" when it is one). Column headings are
    labels: a first row with a cell of a sentence's length ("Long press button to enter
    the CO2 setup.", a screen and what to do on it) is the table's first row ("sentence"),
    as is a setting of two columns and its value ("setting": "Baud Rate | 9600"), a
    title over the rows after it ("title": ``is_section_row``), and a row keyed like the
    ``rows`` after it ("data": "b04 | Total voltage | V" over "b06 ...", "b07 ...": the
    page printed the headings outside the table's frame)."""
    if any(len(cell.split()) >= HEADING_WORDS for text in band for cell in text.split(" | ")):
        return "sentence"
    cells = band[0].split(" | ") if len(band) == 1 else []
    if len(cells) == 2 and re.search(r"\d", cells[1]):
        return "setting"
    if len(cells) >= 2 and is_section_row(band[0]):
        return "title"
    key = _key_shape(band[0]) if len(band) == 1 else ""
    if re.search(r"\d", key) and sum(_key_shape(row) == key for row in rows) >= 2:
        return "data"
    return ""


def _key_shape(row: str) -> str:
    """The shape of a row's first word, its digits as one ("b04", "b11": "b9")."""
    words = row.split(" | ")[0].split()
    return re.sub(r"\d+", "9", words[0].lower()) if words else ""


def is_section_row(row: str) -> bool:
    """Whether a table row of several columns fills only its first cell: a title over the
    rows after it ("3.4.2 Communication Address |  | "), not a row of values."""
    cells = [c.strip() for c in row.split(" | ")]
    return len(cells) >= 2 and bool(cells[0]) and not any(cells[1:])


def _coverage(regions: Sequence[Region], query: QueryAnalysis, idf: dict[str, float]) -> float:
    """Share of the query's term weight found in the supporting regions."""

    total = sum(idf.values()) or 1.0
    found = set()
    for region in regions:
        found |= set(tokenize(region.text))
    return sum(w for t, w in idf.items() if t in found) / total


def _confidence(cosine: float, coverage: float) -> float:
    """A logistic blend of semantic similarity and lexical coverage, in [0, 1]."""
    z = 9.0 * (cosine - 0.45) + 5.0 * (coverage - 0.5)
    return 1.0 / (1.0 + math.exp(-z))
