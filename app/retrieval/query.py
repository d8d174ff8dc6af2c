"""Understanding a question well enough to search: terms, identifiers, intent, product.

Dense embeddings handle codes and values poorly (J24, CID 1301, 13.8 V), so identifiers
are pulled out for exact matching, and the question's intent (wiring vs. keypad use)
becomes a preference for a manual type.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.library.models import DocumentInfo, ManualType


def _words(text: str) -> list[str]:
    return text.split()


STOPWORDS = frozenset(
    _words(
        """
    a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers how i if in into is it its itself
    just me more most my no nor not now of off on once only or other our out over own
    same she should so some such than that the their them then there these they this
    those through to too under until up very was we were what when where which while who
    whom why will with would you your yours i'm it's what's don't doesn't isn't can't
    won't tell show explain please want need know get got make way set use using used
    happen happens mean means say says
    """
    )
)
# How questions are phrased rather than what they ask about: answers rarely contain them.
QUESTION_WORDS = frozenset(
    _words(
        """
    compare comparison difference many much often long take takes last lasts type kind
    customer typed
    several times rule assuming assume still indicate indicates happens happen exactly
    correct right wrong possible able whether something anything everything tell
    describe
    """
    )
)
# Words so common in manuals that they say little about where an answer is.
WEAK = frozenset(
    _words(
        """
    panel system control manual page default set setting settings value use device unit
    please see refer following shown
    """
    )
)
# How manuals write the quantities questions name: "voltage" is "13.8 V", "maximum
# current" is "500 mA max". A question term counts as found when any of these is.
ALIASES: dict[str, tuple[str, ...]] = {
    "voltage": ("v", "vdc", "vac", "volt", "volts"),
    "current": ("a", "ma", "amp", "amps", "ampere"),
    "maximum": ("max",),
    "minimum": ("min",),
    "resistance": ("ω", "ohm", "ohms", "kω", "kohm"),
    "resistor": ("ω", "ohm", "ohms", "kω", "kohm"),
    "capacity": ("ah", "mah"),
    "power": ("w", "watt", "watts"),
    "frequency": ("hz", "khz", "mhz", "ghz"),
    "temperature": ("°c", "°f", "celsius", "fahrenheit"),
    "hours": ("h", "hr", "hrs"),
    "minutes": ("min", "mins"),
    "seconds": ("s", "sec", "secs"),
    "password": ("code", "pin"),
    "wire": ("awg", "cable"),
    "gauge": ("awg",),
    "pinout": ("pin", "pins", "connections"),
}


def alias_map(terms: Sequence[str]) -> dict[str, str]:
    """Stem of an alias -> stem of the question term it stands for."""
    out: dict[str, str] = {}
    for term in terms:
        for alias in ALIASES.get(term, ()) + ALIASES.get(stem(term), ()):
            out.setdefault(stem(alias), stem(term))
    return out


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[.\-/+][A-Za-z0-9]+)*\+?|°[CF]|[✱★▲▼◄►#Ω]")
_IDENT = re.compile(
    r"""(?x)
    \b(?:[A-Z]{1,6}[-]?\d+[A-Z0-9-]*)\b      # J24, CID1301, HSGW-MAX8, BOGP-3
    | \b\d+(?:\.\d+)?\s?(?:V|VDC|VAC|mA|A|Ah|mAh|W|Hz|kHz|MHz|GHz|ms|s|sec|min|h|hrs?
                         |AWG|dB|°C|°F|Ω|ohms?|k|%)\b
    | \b\d{3,}\b                             # 1301, 7982, 600
    | \b[A-Z]{2,}[A-Z0-9]*\b                  # CID, PGM, AUX, RS485
    """
)
_INTENT: dict[ManualType, tuple[str, ...]] = {
    "installation": (
        "wire",
        "wiring",
        "wired",
        "jumper",
        "terminal",
        "install",
        "installation",
        "mount",
        "mounting",
        "connect",
        "connection",
        "cable",
        "resistor",
        "eol",
        "voltage",
        "current",
        "battery",
        "power",
        "supply",
        "bus",
        "rs485",
        "pgm",
        "aux",
        "bell",
        "siren",
        "antenna",
    ),
    "user": (
        "arm",
        "arming",
        "disarm",
        "keypad",
        "code",
        "pin",
        "user",
        "chime",
        "bypass",
        "lcd",
        "display",
        "press",
        "key",
        "menu",
        "sms",
        "mode",
        "lockout",
        "locked",
        "led",
    ),
}


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    text: str
    terms: tuple[str, ...]  # lower-cased content words, in order, unique
    identifiers: tuple[str, ...]  # codes and values to match exactly
    intent: ManualType | None
    products: tuple[int, ...]  # ids of documents whose product the question names


def tokenize(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


@lru_cache(maxsize=200_000)
def stems_of(text: str) -> frozenset[str]:
    """The stems of a text's tokens; cached because pages are scored again and again."""
    return frozenset(stem(t) for t in tokenize(text))


@lru_cache(maxsize=100_000)
def stem(token: str) -> str:
    """A light suffix stripper, so 'charging' meets 'charge' and 'restarts' meets 'restart'."""
    if len(token) <= 4 or not token.isalpha():
        return token
    for suffix in ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s", "e"):
        if token.endswith(suffix) and len(token) - len(suffix) >= 4:
            return token[: -len(suffix)]
    return token


def content_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for token in tokenize(text):
        if token not in STOPWORDS and (len(token) > 1 or token.isdigit() or not token.isalnum()):
            seen.setdefault(token, None)
    return list(seen)


# Words a product name may hold that name no product on their own: a question about "the
# alarm" or "the system" names no manual, even when one is called "Hybrid Security Alarm
# System".
GENERIC_PRODUCT_WORDS = frozenset(
    _words(
        """
    alarm alarms security system systems panel control receiver digital wireless wired
    gateway keypad module unit device smart home fire intrusion communicator transmitter
    detector sensor series model version edition manual guide installation user users
    scanned document documentation instructions reference hardware software kit
    """
    )
)


def product_names(
    documents: Sequence[DocumentInfo], doc_count: Callable[[str], int] | None = None
) -> dict[int, frozenset[str]]:
    """The words and phrases that name each document's product in a question.

    The whole product name always does, and so does its model code (``hsgw-max8``). A
    single word of the name (``ademco``, ``hybrid``) does only when it is distinctive:
    long enough, not a generic word, not part of another manual's product name, and, when
    ``doc_count`` can tell, found in the text of at most one manual.
    """
    parts_of: dict[int, set[str]] = {}
    names: dict[int, set[str]] = {}
    for doc in documents:
        product = " ".join(doc.profile.product.lower().replace("_", " ").split())
        found = {product} if product else set()
        code = re.match(r"[a-z]+-?[a-z0-9]*\d", product)
        if code:
            found.add(code.group(0))
        names[doc.id] = found
        parts_of[doc.id] = {
            p
            for p in set(re.split(r"[\s/]+", product)) | set(re.split(r"[\s/-]+", product))
            if len(p) >= 4 and p not in STOPWORDS and p not in WEAK
        } - GENERIC_PRODUCT_WORDS
    for doc_id, parts in parts_of.items():
        others = set().union(*(v for k, v in parts_of.items() if k != doc_id))
        for part in parts - others:
            # A bare model number ("685") names a product only when no other manual
            # prints it, which takes the library to tell.
            if part.isdigit() and doc_count is None:
                continue
            if doc_count is not None and doc_count(part) > 1:
                continue
            names[doc_id].add(part)
    return {doc_id: frozenset(n for n in found if n) for doc_id, found in names.items()}


def analyse(
    text: str,
    documents: Sequence[DocumentInfo],
    names: Mapping[int, frozenset[str]] | None = None,
) -> QueryAnalysis:
    """Terms, identifiers, intent and named products of a question. ``names`` are the
    product names of each document (``product_names``); computed here when not given."""
    names = product_names(documents) if names is None else names
    idents = []
    product_words = {
        w for d in documents for w in re.split(r"[\s/-]+", d.profile.product.lower()) if w
    } | {d.profile.product.lower() for d in documents}
    for match in _IDENT.finditer(text):
        value = match.group(0).strip()
        low = value.lower()
        if low in STOPWORDS or value in idents or len(value) < 2 or low in product_words:
            continue
        if value.isalpha() and value.isupper() and len(value) <= 3:
            continue  # bare acronyms (AC, LED, SMS) are ordinary terms, not identifiers
        idents.append(value)
    terms = content_terms(text)
    return QueryAnalysis(
        text=text,
        terms=tuple(terms),
        identifiers=tuple(idents),
        intent=_intent(terms),
        products=tuple(_named_products(text, names)),
    )


def _intent(terms: list[str]) -> ManualType | None:
    scores = {kind: sum(t in words for t in terms) for kind, words in _INTENT.items()}
    best = max(scores.items(), key=lambda kv: kv[1])
    tied = sum(1 for v in scores.values() if v == best[1])
    return best[0] if best[1] > 0 and tied == 1 else None


def _named_products(text: str, names: Mapping[int, frozenset[str]]) -> list[int]:
    """Documents whose product name (or a distinctive part of it) the question mentions."""
    lowered = " ".join(text.lower().replace("_", " ").split())
    return [
        doc_id
        for doc_id, found in names.items()
        if any(re.search(rf"(?<![\w-]){re.escape(n)}(?![\w])", lowered) for n in found)
    ]


def fts_query(terms: Sequence[str], extra: Sequence[str] = ()) -> str:
    """An FTS5 OR-query over terms; multi-part tokens (13.8, HSGW-MAX8) become phrases.

    BM25 matches the question's words as written (re-ranking then meets inflections by
    stem); ``extra`` words, OCR misreadings of the terms, are matched too."""
    parts = []
    for term in terms:
        pieces = re.findall(r"[A-Za-z0-9]+", term)
        if pieces:
            parts.append('"' + " ".join(pieces) + '"')
    parts += [f'"{w}"' for w in extra if re.fullmatch(r"[A-Za-z0-9]+", w)]
    return " OR ".join(dict.fromkeys(parts))
