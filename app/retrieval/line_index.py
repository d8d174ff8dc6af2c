"""Each line's terms, read once after import rather than at every search.

A search re-ranks ten pages, 500 to 700 lines at 100,000 chunks, and turned each of those
lines into word stems and quantity keys (``terms.token_stems``, ``line_stems``): with them
stored, the re-ranking stage went from 14.0 to 10.9 ms p50 and the whole search from 21.2
to 17.2 ms (``bench/search_latency.py``, one run before and one after). A line's terms
depend on its text alone, so they are read once
per chunk and kept in the library (``line_terms``, migration 10); a search reads them
with the page's lines (``Store.pages_chunks``) and ``regions.LineTerms`` intersects them
with the question's stems instead of tokenising.

A chunk's record holds one entry per line, in the order of its ``lines``:

- whether it is a contents or index entry (``is_contents_line``);
- the stems of its words and the quantity keys of the values it prints (``token_stems``);
- the stems a scan's split words give joined ("out puts": "output"), which only a
  scanned page's lines are matched with (``line_stems`` less the first set);
- for a line with characters beyond ASCII, the same two sets read from its
  ``searchable_text`` (key glyphs as words), which a line's regions are scored with.

``VERSION`` names this reading of lines. A change to how the code tokenises lines, stems
them or reads their values (``query.tokenize``, ``query.part_stems``,
``units.quantity_keys``), or to the pinned PyStemmer or pint, must raise it: rows of
another version are ignored by the search, which reads those lines itself, and written
again by ``fill``. ``tests/unit/retrieval/test_line_index.py`` holds a digest of the
records of varied lines and the versions of the two packages, and fails when either
changes and ``VERSION`` does not. (Asking the installed packages their versions here, at
every start, made a cold ``ask`` 0.15 s slower: ``bench/cold_ask.py``, median 1.10 s
against 0.95.)
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence

from app.library.import_events import ImportProgress
from app.library.layout import is_contents_line
from app.library.models import TextLine
from app.library.store import Store, lines_from_json
from app.library.symbols import searchable_text
from app.retrieval.terms import line_stems, token_stems

VERSION = 5
BATCH = 256  # chunks read, indexed and written at a time (a few hundred ms of CPU)

# Separators that no stem or quantity key holds (tokens are letters, digits and .-/+;
# keys are pint's dimension names).
_STEM, _SET, _LINE = "\t", "\x1f", "\x1e"

Sets = tuple[frozenset[str], frozenset[str]]  # (word stems and quantity keys, joined extras)


def _sets(text: str) -> Sets:
    words = token_stems(text)
    return words, line_stems(text) - words


def _encode_sets(sets: Sets) -> str:
    return _SET.join(_STEM.join(sorted(s)) for s in sets)


def line_record(text: str) -> str:
    """The stored terms of one line."""
    record = ("c" if is_contents_line(text) else "") + _SET + _encode_sets(_sets(text))
    if not text.isascii():
        record += _SET + _encode_sets(_sets(searchable_text(text)))
    return record


def chunk_record(lines: Sequence[TextLine]) -> str:
    """The stored terms of a chunk's lines, in their order."""
    return _LINE.join(line_record(line.text) for line in lines)


def split_record(record: str, count: int) -> list[str] | None:
    """A chunk's record as one string per line, or None when it does not hold ``count``
    lines (then it is not the record of these lines: the search reads them itself)."""
    lines = record.split(_LINE) if count else []
    return lines if len(lines) == count else None


def decode_line(record: str, scanned: bool, glyphs: bool) -> list[str] | None:
    """A line's terms as ``LineTerms.of`` reads them: joined words too on a ``scanned``
    page, the glyphs read as words with ``glyphs`` (a line beyond ASCII only); None when
    the record lacks the glyph reading asked for."""
    sets = record.split(_SET)
    if glyphs:
        if len(sets) < 5:
            return None
        words, joined = sets[3], sets[4]
    else:
        words, joined = sets[1], sets[2]
    if scanned and joined:
        return (words + _STEM + joined).split(_STEM) if words else joined.split(_STEM)
    return words.split(_STEM) if words else []


def line_contents(record: str) -> bool:
    """Whether a stored line is a contents entry (``is_contents_line``)."""
    return record.startswith("c" + _SET)


def missing(store: Store) -> int:
    """How many chunks have no terms of this version."""
    return store.count_without_terms(VERSION)


def fill(
    store: Store,
    cancel: threading.Event | None = None,
) -> Iterator[tuple[int, int]]:
    """Write the terms of every chunk that has none of this version, a batch at a time;
    yields (chunks done, chunks to do) after each batch. Resumable: what was written
    stays, and a chunk removed meanwhile is skipped (``Store.put_line_terms``)."""
    total = missing(store)
    done, after = 0, -1
    while done < total:
        if cancel is not None and cancel.is_set():
            return
        batch = store.chunks_without_terms(VERSION, after, BATCH)
        if not batch:
            break
        rows = [(cid, raw, chunk_record(lines_from_json(raw))) for cid, raw in batch]
        store.put_line_terms(rows, VERSION)
        after = batch[-1][0]
        done += len(batch)
        yield done, total


def fill_progress(store: Store, cancel: threading.Event | None = None) -> Iterator[ImportProgress]:
    """``fill`` as the library's import progress ("indexing lines", with an estimate of
    the time left), for the import lane and the command line after an import."""
    started = time.perf_counter()
    for done, total in fill(store, cancel):
        rate = done / max(time.perf_counter() - started, 1e-6)
        yield ImportProgress("library", "indexing lines", done, total, (total - done) / rate)


def fill_all(store: Store, cancel: threading.Event | None = None) -> tuple[int, float]:
    """``fill`` to the end; (chunks written, seconds)."""
    started, written = time.perf_counter(), 0
    for done, _ in fill(store, cancel):
        written = done
    return written, time.perf_counter() - started
