"""Choosing the lines of a page that support a query, and boxing them tightly.

A highlight should point at the answer, not at the whole page: lines are scored by the
query terms they hold (weighted by rarity, identifiers counting most), the best lines and
their close neighbours are kept, and vertically adjacent lines merge into one region.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.library.models import Box, TextLine, union_box
from app.library.symbols import searchable_text
from app.retrieval.line_index import decode_line, is_contents_line, line_contents
from app.retrieval.query import alias_map, stem
from app.retrieval.terms import (
    TermFilter,
    joined_stems,
    line_stems,
    term_filter,
    token_stems,
    word_stems,
)


@dataclass(frozen=True, slots=True)
class Region:
    box: Box
    text: str
    score: float


@lru_cache(maxsize=200_000)
def _glyph_stems(text: str, scanned: bool = True) -> frozenset[str]:
    """A line's stems, its key glyphs read as words; split words joined on scans."""
    searchable = text if text.isascii() else searchable_text(text)
    return line_stems(searchable) if scanned else token_stems(searchable)


class LineTerms:
    """The question's stems each line holds, directly or through an alias (a page stem
    that ``aliases`` maps to a question stem counts as that stem), read once per line:
    a search asks it of the same lines for a page's coverage and for its regions.

    ``wanted`` are the stems of all the question's terms; a caller weighing fewer of them
    intersects. ``records`` maps a line's text to the terms the library stored for it
    (``line_index``; a search fills it as it reads pages): those lines are not
    tokenised. Of the others, lines that cannot hold a wanted stem (``TermFilter``) are
    not tokenised either."""

    def __init__(
        self,
        wanted: Iterable[str],
        aliases: Mapping[str, str] | None,
        records: Mapping[str, str] | None = None,
    ) -> None:
        self.wanted = frozenset(wanted)
        self.records = records if records is not None else {}
        self.aliases = {a: t for a, t in (aliases or {}).items() if t in self.wanted}
        self._alias_keys = frozenset(self.aliases)
        self._quick: TermFilter | None = None  # made when a line without a record is read
        # A line's quantity keys are read only when a question term is one (an alias's).
        self.quantities = any(k.startswith("⟨") for k in self.wanted | set(self.aliases))
        self._seen: dict[tuple[str, bool, bool], frozenset[str]] = {}

    def quick(self) -> TermFilter:
        """The filter of lines that may hold a wanted stem (compiled once, when needed)."""
        if self._quick is None:
            self._quick = term_filter(self.wanted | set(self.aliases))
        return self._quick

    def contents(self, text: str) -> bool:
        """Whether a line is a contents entry (``is_contents_line``), as stored if it is."""
        record = self.records.get(text)
        return is_contents_line(text) if record is None else line_contents(record)

    def of(self, text: str, scanned: bool = True, glyphs: bool = False) -> frozenset[str]:
        """The stems ``text`` holds; words split in two are matched joined on ``scanned``
        pages, and with ``glyphs`` a line's key glyphs are read as words first (a glyph
        line is then always read: its symbols become words)."""
        glyphs = glyphs and not text.isascii()
        key = (text, scanned, glyphs)
        found = self._seen.get(key)
        if found is None:
            record = self.records.get(text)
            stored = None if record is None else decode_line(record, scanned, glyphs)
            stems: Collection[str]
            if stored is not None:
                stems = stored
            elif glyphs:
                stems = _glyph_stems(text, scanned)
            elif self.quick().may_hold(text):
                if self.quantities:
                    stems = (line_stems if scanned else token_stems)(text)
                else:
                    stems = (joined_stems if scanned else word_stems)(text)
            else:
                stems = _NOTHING
            found = self.wanted.intersection(stems)
            if self.aliases and stems:
                aliased = self._alias_keys.intersection(stems)
                if aliased:
                    found = found.union(self.aliases[a] for a in aliased)
            self._seen[key] = found
        return found


_NOTHING: frozenset[str] = frozenset()


class _LineScorer:
    """The weight of the question terms a line holds (``idf`` keyed by the terms' stems,
    ``terms`` reading which of them it holds), identifiers most; what is the same for
    every line of a page is worked out once."""

    def __init__(
        self,
        idf: Mapping[str, float],
        identifiers: Sequence[str],
        terms: LineTerms,
        scanned: bool,
    ) -> None:
        self.idf, self.terms, self.scanned = idf, terms, scanned
        self.identifiers = [ident.lower().replace(" ", "") for ident in identifiers]
        self.bonus = 2.0 * max(idf.values(), default=1.0)
        self._weights: dict[frozenset[str], float] = {}  # many lines hold the same stems

    def __call__(self, line: TextLine) -> float:
        held = self.terms.of(line.text, self.scanned, glyphs=True)
        score = self._weights.get(held)
        if score is None:
            score = self._weights[held] = sum(self.idf.get(s, 0.0) for s in held)
        if self.identifiers:
            text = line.text.lower().replace(" ", "")
            score += self.bonus * sum(ident in text for ident in self.identifiers)
        return score


def select_regions(
    lines: Sequence[TextLine],
    idf: Mapping[str, float],
    identifiers: Sequence[str] = (),
    aliases: Mapping[str, str] | None = None,
    max_regions: int = 3,
    scanned: bool = True,
    terms: LineTerms | None = None,
) -> list[Region]:
    """The supporting regions among ``lines`` (in reading order), best first; words a scan
    split in two are matched joined on ``scanned`` pages. ``terms`` reads which question
    stems a line holds (a search shares one across its pages); by default, one over the
    stems of ``idf``'s terms and ``aliases``."""
    weights: dict[str, float] = {}
    for term, weight in idf.items():
        weights[stem(term)] = max(weights.get(stem(term), 0.0), weight)
    if terms is None:
        terms = LineTerms(weights, alias_map(list(idf)) if aliases is None else aliases)
    score = _LineScorer(weights, identifiers, terms, scanned)
    scored = [(score(line), i) for i, line in enumerate(lines)]
    if not scored:
        return []
    top = max(s for s, _ in scored)
    if top <= 0:
        return []
    keep = sorted(i for s, i in scored if s >= 0.45 * top)
    groups: list[list[int]] = []
    for i in keep:
        if groups and i - groups[-1][-1] <= 2 and _near(lines[groups[-1][-1]], lines[i]):
            groups[-1].append(i)
        else:
            groups.append([i])
    regions = [
        Region(
            box=union_box([lines[i].box for i in group]),
            text="\n".join(lines[i].text for i in group),
            score=max(scored[i][0] for i in group),
        )
        for group in groups
    ]
    regions.sort(key=lambda r: -r.score)
    return regions[:max_regions]


def _near(a: TextLine, b: TextLine) -> bool:
    height = max(a.box[3] - a.box[1], b.box[3] - b.box[1], 1.0)
    horizontal = min(a.box[2], b.box[2]) - max(a.box[0], b.box[0]) > -height * 2
    return abs(b.box[1] - a.box[3]) < height * 1.5 and horizontal


def idf_weights(terms: Sequence[str], doc_freq: Mapping[str, int], total: int) -> dict[str, float]:
    """Inverse document frequency per term (BM25's form, floored at a small positive value)."""
    out = {}
    for term in terms:
        df = doc_freq.get(term, 0)
        out[term] = max(math.log((total - df + 0.5) / (df + 0.5) + 1.0), 0.05)
    return out
