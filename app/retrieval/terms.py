"""How a question's words are recognised on a page that writes them differently.

Manuals and their scans rarely spell a term the way a question does. Three kinds of
difference are bridged here, each as an alias from a page word's stem to the question
term's stem, so coverage, regions and BM25 all see the same match:

- quantities (``query.alias_map``: "voltage" is found as "13.8 V", by the unit registry);
- OCR misreadings: a scanned page reads "Conputer" or "faiiure". A word of the OCR'd
  pages within one edit of a question term, and rarer than it, stands for it;
- words a scan split in two ("out puts"): adjacent tokens joined are matched too
  (``line_stems``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from functools import lru_cache
from itertools import pairwise

from app.retrieval.query import alias_map, code_key, part_stems, stem, tokenize
from app.retrieval.stopwords import STOPWORDS
from app.retrieval.units import QUANTITY_HINT, quantity_keys

# Shorter words have too many real neighbours one edit away ("zone"/"done").
MIN_FUZZY_LENGTH = 5
# Longer "words" are pasted codes or noise; each would cost one deletion per letter.
MAX_FUZZY_LENGTH = 30
_WORD = re.compile(r"[a-z0-9]+")


class OcrVocabulary:
    """The words of a library's OCR'd pages, with how many pages hold each, indexed by
    every one-letter deletion so that the words one edit from a question term are found
    without a scan of the vocabulary."""

    def __init__(self, texts: Iterable[str], keys: Iterable[tuple[int, int]] = ()) -> None:
        self.keys = frozenset(keys)  # (document id, page) of the scanned pages
        self.pages: Counter[str] = Counter()
        for text in texts:
            self.pages.update({w for w in _WORD.findall(text.lower()) if len(w) >= 4})
        self.index: dict[str, set[str]] = defaultdict(set)
        for word in self.pages:
            if len(word) >= MIN_FUZZY_LENGTH - 1:
                for key in deletions(word):
                    self.index[key].add(word)

    def __len__(self) -> int:
        return len(self.pages)

    def misreadings(self, term: str, pages_with: Callable[[str], int]) -> list[str]:
        """OCR words one edit from ``term`` that are likely misreadings of it.

        ``pages_with(word)`` counts the library's pages holding a word, scans and text
        layers alike. A candidate is a misreading when no text-layer page holds it (it is
        no real word of these manuals) and the term itself is on at least three times as
        many pages (a misread word is rarer than the word it garbles).
        """
        if not MIN_FUZZY_LENGTH <= len(term) <= MAX_FUZZY_LENGTH or not term.isalpha():
            return []
        found: set[str] = set()
        for key in deletions(term):
            found |= self.index.get(key, set())
        base = pages_with(term)
        out = []
        for word in sorted(found):
            if word == term or not one_edit(term, word) or stem(term) == stem(word):
                continue
            in_scans = self.pages[word]
            if pages_with(word) <= in_scans and 3 * in_scans <= base:
                out.append(word)
        return out


def deletions(word: str) -> set[str]:
    """The word and every word it gives with one letter dropped: two words one edit
    apart share one of these (a deletion index's keys)."""
    return {word} | {word[:i] + word[i + 1 :] for i in range(len(word))}


def one_edit(a: str, b: str) -> bool:
    """Levenshtein distance <= 1."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long[i]:
        i += 1
    return short[i:] == long[i + 1 :]


def expansions(
    terms: Sequence[str],
    ocr: OcrVocabulary | None = None,
    pages_with: Callable[[str], int] | None = None,
) -> tuple[dict[str, str], list[str]]:
    """(stem of a page word -> stem of the question term it stands for, the OCR
    misreadings found): unit and synonym aliases, and misreadings of each term."""
    out = alias_map(list(terms))
    words: list[str] = []
    if ocr is None or not len(ocr) or pages_with is None:
        return out, words
    for term in terms:
        for word in ocr.misreadings(term, pages_with):
            out.setdefault(stem(word), stem(term))
            words.append(word)
    return out, words


@lru_cache(maxsize=200_000)
def word_stems(text: str) -> frozenset[str]:
    """A line's stems (a text layer's words are whole: no joining).

    A re-ranked page's lines are mostly new to the cache, so this runs some thousand
    times a search."""
    tokens = tokenize(text)
    return frozenset(map(stem, tokens)) | part_stems(tokens)


@lru_cache(maxsize=200_000)
def joined_stems(text: str) -> frozenset[str]:
    """A line's stems, and the stems of each pair of adjacent tokens joined (a scan's
    "out puts" holds "output")."""
    tokens = tokenize(text)
    joined = (a + b for a, b in pairwise(tokens) if a.isalpha() and b.isalpha())
    return frozenset(map(stem, tokens)) | part_stems(tokens) | frozenset(map(stem, joined))


def token_stems(text: str) -> frozenset[str]:
    """``word_stems`` and the quantity keys of the values the line prints (looked for
    only when it may print one)."""
    stems = word_stems(text)
    return stems | quantity_keys(text) if QUANTITY_HINT.search(text) else stems


def line_stems(text: str) -> frozenset[str]:
    """``joined_stems`` and the quantity keys of the values the line prints."""
    stems = joined_stems(text)
    return stems | quantity_keys(text) if QUANTITY_HINT.search(text) else stems


@lru_cache(maxsize=256)
def term_filter(keys: frozenset[str]) -> TermFilter:
    """The (cached) filter for a set of stems."""
    return TermFilter(keys)


class TermFilter:
    """A quick test that a line may hold one of some stems, before it is tokenised.

    A Porter stem differs from its word at most in its last letter ("wiring" -> "wire",
    "battery" -> "batteri", "dry" -> "dri"), so a line holding a stem holds the stem less
    that letter as a substring (with spaces removed, also across a split word); a stem of
    three letters is looked for whole unless it ends in "e" or "i". A two-letter stem must
    start a word ("us" is the stem of "used"), and single letters and numbers of one or two
    digits stand alone, or every line would pass. Lines that fail cannot match, so the
    exact test (``line_stems``) runs only on those that pass.
    """

    def __init__(self, keys: Iterable[str]) -> None:
        keys = {k for k in keys if k}
        # A quantity key is held by a line that prints a number.
        self._numbers = any(k.startswith("⟨") for k in keys)
        keys = {k for k in keys if not k.startswith("⟨")}
        # Symbols ("°c", "ω") are tokens of their own.
        short = sorted((k for k in keys if len(k) < 3 and k.isalnum()), key=len, reverse=True)
        letters = [k for k in short if k.isalpha() and len(k) == 2]
        alone = [k for k in short if k not in letters]
        long = sorted(
            {
                k[:-1] if k.isalpha() and (len(k) > 3 or k[-1] in "ei") else k
                for k in keys - set(short)
            },
            key=len,
            reverse=True,
        )
        self._long = re.compile("|".join(map(re.escape, long))) if long else None
        # A word's letters may follow digits ("LIST1", "1ines": ``query.part_stems``).
        parts = [r"(?<![a-z0-9])" + re.escape(k) + "(?![a-z0-9])" for k in alone]
        parts += [r"(?<![a-z])" + re.escape(k) for k in letters]
        self._short = re.compile("|".join(parts)) if parts else None

    def may_hold(self, text: str) -> bool:
        low = text.lower()
        if self._numbers and QUANTITY_HINT.search(text):
            return True
        if self._short is not None and self._short.search(low):
            return True
        return self._long is not None and self._long.search(low.replace(" ", "")) is not None


# A code split where its letters meet its digits at most this many times is looked for
# split at each such place too ("BLN012TC1" printed "BLN-012TC1"); longer ones as written.
MAX_CODE_SPLITS = 3


def code_variants(code: str) -> list[str]:
    """The ways a page may print a code, as phrases of the full-text index's tokens (it
    splits words at hyphens): as written ("ft 60" for "FT-60"), in one word ("ft60"), and
    split where its letters meet its digits ("ft 60" for "FT60"; "bln 012tc1" for
    "BLN012TC1", up to ``MAX_CODE_SPLITS`` such places)."""
    key = code_key(code)
    variants = [" ".join(re.findall(r"[a-z0-9]+", code.lower())), key]
    runs = re.findall(r"[a-z]+|\d+", key)
    if "".join(runs) == key and 1 < len(runs) <= MAX_CODE_SPLITS + 1:
        for cuts in itertools.product((" ", ""), repeat=len(runs) - 1):
            variants.append(runs[0] + "".join(c + r for c, r in zip(cuts, runs[1:], strict=True)))
    for padded in number_forms(code):
        variants += [padded, re.sub(r"(?<=[a-z])(?=\d)", " ", padded)]
    return [v for v in dict.fromkeys(variants) if v]


# A display's code: a few letters, then its number ("E5", "P12", "F03").
_LETTERS_NUMBER = re.compile(r"([a-z]{1,3})(\d{1,3})")


def display_code(code: str) -> tuple[str, str] | None:
    """A display code's letters and its number as written ("E-05" -> ("e", "05")), or None
    for any other code: in a model code ("BLN012TC1") the digits are the model's, and
    "P0-05" is two numbers."""
    match = _LETTERS_NUMBER.fullmatch(code_key(code))
    if match is None or len(re.findall(r"\d+", code)) != 1:
        return None
    return match.group(1), match.group(2)


def bare_number(number: str) -> str:
    """A number as written without its leading zeros ("05" -> "5", "000" -> "0")."""
    return number.lstrip("0") or "0"


def number_forms(code: str) -> list[str]:
    """A display code's other ways of writing its number, as index tokens: with a leading
    zero or without ("E5" and "E05"), as a display shows one and its manual's table prints
    the other (``display_code``)."""
    parts = display_code(code)
    if parts is None:
        return []
    letters, number = parts
    bare = bare_number(number)
    if bare == number and len(bare) > 1:
        return []  # "E10", "FT-60": no zero to add or take away
    forms = {bare, bare.zfill(2), bare.zfill(3)} - {number}
    return [letters + form for form in sorted(forms, key=len)]


# Characters OCR takes for one another (in lower case): a scan's "E0S" may be "E05", its
# "C2O" "C20"; its "120" is no misreading of "V20".
_LOOKALIKES = frozenset(
    frozenset(pair) for pair in "0o 0d 0q 1l 1i 1t il 5s 2z 8b 83 6g 6b 9g 9q 4a uv ce 7t".split()
)


def one_off(word: str, words: Collection[str]) -> bool:
    """Whether ``words`` hold ``word`` or a word OCR may have read for it: as long, with
    one character another OCR takes it for ("E0S" for "E05")."""
    if word in words:
        return True
    for w in words:
        if len(w) != len(word):
            continue
        diff = [(a, b) for a, b in zip(w, word, strict=True) if a != b]
        if len(diff) == 1 and frozenset(diff[0]) in _LOOKALIKES:
            return True
    return False


_WORD_AT = re.compile(r"[A-Za-z][A-Za-z0-9']*(?:-[A-Za-z0-9']+)*")


def name_runs(text: str) -> list[tuple[str, ...]]:
    """Two or more capitalised words in a row ("the Daikin Altherma", "a Texecom Premier
    Elite", "a Sur-Gard System"): how a maker and a product or series are written. Function
    words, words of fewer than three letters and words with digits (codes: ``is_code``)
    are in none; nor is a run broken by punctuation ("Siemens, Bosch or ABB")."""
    runs: list[tuple[str, ...]] = []
    run: list[str] = []
    end = 0
    for match in _WORD_AT.finditer(text):
        word, gap = match.group(0), text[end : match.start()]
        named = (
            word[0].isupper()
            and word.replace("-", "").isalpha()
            and len(word) >= 3
            and word.lower() not in STOPWORDS
        )
        if not named or (run and gap.strip()):
            if len(run) >= 2:
                runs.append(tuple(run))
            run = []
        if named:
            run.append(word)
        end = match.end()
    if len(run) >= 2:
        runs.append(tuple(run))
    return runs


def capitalised_words(text: str) -> list[str]:
    """Single capitalised words of four letters or more, in mixed case ("a Heathkit
    unit", "a Sur-Gard model"): how a maker or a product is written when the question
    names it by one word. Acronyms in capitals ("LED", "USB") and words with digits (codes:
    ``is_code``) are not among them."""
    return [
        word
        for word in dict.fromkeys(_WORD_AT.findall(text))
        if word[0].isupper()
        and any(c.islower() for c in word)
        and word.replace("-", "").isalpha()
        and len(word.replace("-", "")) >= 4
        and word.lower() not in STOPWORDS
    ]
