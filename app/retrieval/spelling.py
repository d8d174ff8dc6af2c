"""A question's misspelt words, read as the library's words they stand for.

A technician types fast: "prpoane", "flahsing". A word no manual of the library prints,
one slip of typing (a letter doubled, dropped or added, two neighbouring letters swapped,
a key struck for the one beside it) from a word the manuals do print, is read as that
word: the full-text search, the coverage of a page and the embedding then see the word
the manuals use. What counts as a word is the library's own vocabulary (the full-text
index's terms, with how many pages hold each), nothing fitted by hand. A word the library
prints is never changed, nor an English word it does not print ("cupboard"), nor a short
one (too many real words are one edit from "rate": "date", "late", "rite"), nor the letters
of a code.

A word spelled as the other side of the Atlantic spells it ("colour" where the manuals
print "color", "analyze" where they print "analyse") is read as the library's spelling
too (``other_spelling``: breame's lists of British and American spellings). Manuals from
one country meet technicians from another, and the stemmer keeps the two apart.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence

from breame.data.spelling_constants import (
    AMERICAN_ENGLISH_SPELLINGS,
    BRITISH_ENGLISH_SPELLINGS,
)

from app.retrieval.terms import deletions, one_edit

# Shorter words have too many real neighbours one edit away ("rate"/"date"/"late").
MIN_LENGTH = 6
MAX_LENGTH = 30
_WORD = re.compile(r"[A-Za-z]+")


class Vocabulary:
    """The library's indexed terms and how many pages hold each, indexed by every
    one-letter deletion: the terms one edit from a word are found without a scan."""

    def __init__(self, terms: Iterable[tuple[str, int]]) -> None:
        self.pages: dict[str, int] = {}
        self.index: dict[str, list[str]] = defaultdict(list)
        for term, pages in terms:
            if not term.isalpha() or not MIN_LENGTH - 2 <= len(term) <= MAX_LENGTH:
                continue
            self.pages[term] = pages
            for key in deletions(term):
                self.index[key].append(term)

    def __len__(self) -> int:
        return len(self.pages)

    def near(self, term: str, limit: int = 3) -> list[str]:
        """The indexed terms one edit from ``term``, those most pages hold first (none
        when ``term`` is itself indexed)."""
        if term in self.pages:
            return []
        found = {t for key in deletions(term) for t in self.index.get(key, ())}
        near = [t for t in found if one_edit_or_swap(term, t)]
        near.sort(key=lambda t: (-self.pages[t], t))
        return near[:limit]


def corrections(
    text: str,
    indexed: Callable[[str], str],
    held: Callable[[str], bool],
    vocabulary: Callable[[], Vocabulary],
    surface: Callable[[str], Sequence[str]],
    english: Callable[[str], bool],
) -> dict[str, str]:
    """Each misspelt word of ``text`` and the library's word it stands for.

    A word is misspelt when no page holds it (``held``), it is no English word
    (``english``: "cupboard" is one, though no manual prints it) and a word the manuals
    print is one edit from it. Candidates come from the index's terms one edit from the
    word's term (``indexed``: its stem) in ``vocabulary()`` (asked for only when a word is
    unknown). The word put in its place is one edit from it and indexed as the
    candidate: the candidate with the word's own ending ("flahsing" -> "flash" + "ing"),
    or a word the manuals print (``surface(term)``). "Capacity" is indexed as "capac",
    one edit from "apac", but no such word is one edit from it."""
    out: dict[str, str] = {}
    for word in dict.fromkeys(_WORD.findall(text)):
        low = word.lower()
        if not MIN_LENGTH <= len(low) <= MAX_LENGTH or low in out:
            continue
        if held(low) or english(low):
            continue
        own = indexed(low)
        ending = low[len(own) :] if low.startswith(own) else None
        for term in vocabulary().near(own):
            written = [term + ending] if ending is not None else []
            found = next(
                (w for w in [*written, *surface(term)] if _stands_for(low, w, term, indexed)),
                None,
            )
            if found is not None:
                out[low] = found
                break
    return out


def other_spelling(word: str) -> str | None:
    """``word`` as British or American English spells it otherwise ("colour" -> "color",
    "centre" -> "center", "analyze" -> "analyse"), or None when both spell it alike."""
    low = word.lower()
    return BRITISH_ENGLISH_SPELLINGS.get(low) or AMERICAN_ENGLISH_SPELLINGS.get(low)


def _stands_for(word: str, candidate: str, term: str, indexed: Callable[[str], str]) -> bool:
    return candidate != word and typing_slip(word, candidate) and indexed(candidate) == term


# Rows of a QWERTY keyboard: a finger slips onto a key beside the one it meant.
_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_BESIDE = {
    ch: {row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)}
    | {
        other[j]
        for k, other in enumerate(_ROWS)
        if abs(k - r) == 1
        for j in (i - 1, i, i + 1)
        if 0 <= j < len(other)
    }
    for r, row in enumerate(_ROWS)
    for i, ch in enumerate(row)
}


def typing_slip(typed: str, meant: str) -> bool:
    """Whether ``typed`` is ``meant`` with one slip of typing: a letter doubled, dropped
    or added, two neighbouring letters swapped, or one key struck for the key beside it.
    ("swapping" is not a slip for "snapping": W and N are far apart.)"""
    if not one_edit_or_swap(typed, meant) or typed == meant:
        return False
    if len(typed) != len(meant):
        return True
    diff = [i for i, (x, y) in enumerate(zip(typed, meant, strict=True)) if x != y]
    return len(diff) == 2 or typed[diff[0]] in _BESIDE.get(meant[diff[0]], set())


def respelt(text: str, fixes: Mapping[str, str]) -> str:
    """``text`` with each misspelt word (any case) replaced by the library's word."""
    if not fixes:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, fixes)) + r")\b", re.IGNORECASE)
    return pattern.sub(lambda m: fixes[m.group(0).lower()], text)


def one_edit_or_swap(a: str, b: str) -> bool:
    """Damerau-Levenshtein distance of at most 1: one edit (``terms.one_edit``), or two
    neighbouring letters swapped."""
    if one_edit(a, b):
        return True
    if len(a) != len(b):
        return False
    diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
    if len(diff) != 2:
        return False
    i, j = diff
    return j == i + 1 and a[i] == b[j] and a[j] == b[i]
