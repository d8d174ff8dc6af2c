"""Understanding a question well enough to search: terms, identifiers, quantities, product.

Dense embeddings handle codes and values poorly (J24, CID 1301, 13.8 V), so identifiers
are pulled out for exact matching. Nothing here knows a trade: words are stemmed by the
Porter algorithm (PyStemmer), quantities are recognised by a unit registry (pint,
``units``), and which words are generic or name a product is decided from the library's
own document frequencies (``product_names``, the callers' IDF).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import Stemmer

from app.library.models import DocumentInfo
from app.library.profile import MANUAL_WORDS
from app.retrieval.stopwords import STOPWORDS
from app.retrieval.units import (
    INGRESS,
    asked_key,
    asks_ingress,
    measure_keys,
    names_unit,
    printed_values,
    quantity_keys,
    unit_key,
)

# A code is written "FT-60", "FT 60" or "ft60" by different manuals and people ("V2.0" is
# a version, not "V20").
_CODE_SEPARATORS = re.compile(r"[\s_\-]")
_HAS_LETTER = re.compile(r"[a-z]")
_HAS_DIGIT = re.compile(r"\d")


def code_key(code: str) -> str:
    """A code however it is written: lower-cased, without spaces, hyphens and underscores
    ("FT-60", "FT 60" and "ft60" are one code)."""
    return _CODE_SEPARATORS.sub("", code.lower())


def is_code(word: str) -> bool:
    """Whether a word is a code: letters and digits in one word ("V20", "KP-20", "6X4")."""
    low = word.lower()
    return bool(_HAS_LETTER.search(low) and _HAS_DIGIT.search(low))


# A code as a question writes it: letters and digits, with hyphens between its parts.
CODE_WORD = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")

_STEMMER = Stemmer.Stemmer("porter")
_STEM_LOCK = threading.Lock()


_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[.\-/+][A-Za-z0-9]+)*\+?|°[CF]|[✱★▲▼◄►#Ω]")
_IDENT = re.compile(
    r"""(?x)
    \b(?:[A-Z]{1,6}-?\d+[A-Z0-9]*(?:-[A-Z0-9]+)*)\b  # model and part codes: J24, XK-200
    | \b(?:[a-z]{1,6}-?\d+[a-z0-9]*(?:-[a-z0-9]+)*)\b  # typed in lower case: j24, xk-200
    | \b\d{3,}\b                             # numbers: 1301, 9600
    | \b[A-Z]{2,}[A-Z0-9]*\b                  # acronyms and codes: CAN, RS485
    """
)


@dataclass(frozen=True, slots=True)
class QueryAnalysis:
    text: str
    terms: tuple[str, ...]  # lower-cased content words, in order, unique
    identifiers: tuple[str, ...]  # codes and values to match exactly
    quantities: tuple[str, ...]  # quantity keys the question asks for (``units.asked_key``)
    products: tuple[int, ...]  # ids of documents whose product the question names
    # What it asks for, one tuple of words per asked thing ("what fuse rating and what
    # cable size": two), from ``asked_parts``.
    parts: tuple[tuple[str, ...], ...] = ()
    # The procedures it asks for ("how do I set the demand period"), from
    # ``asked_procedures``.
    procedures: tuple[tuple[str, ...], ...] = ()
    # Those of ``products`` named only by the kind of thing they are ("the radio",
    # ``kind_names``): a question may name other equipment of that kind ("a Heathkit
    # tuner"), so they do not say the question is about the library's.
    by_kind: tuple[int, ...] = ()

    @property
    def asked(self) -> tuple[str, ...]:
        """The words of what the question asks for (``asked_words``)."""
        return tuple(dict.fromkeys(w for part in self.parts for w in part))


def tokenize(text: str) -> list[str]:
    """The lower-cased tokens of a text. ASCII text is lowered first, in one call: the
    pattern treats A-Z and a-z alike, so it finds the same tokens (not so beyond ASCII:
    "°C" lowered is no token, and the Kelvin sign lowers to "k")."""
    if text.isascii():
        return _TOKEN.findall(text.lower())
    return [t.lower() for t in _TOKEN.findall(text)]


@lru_cache(maxsize=200_000)
def stems_of(text: str) -> frozenset[str]:
    """The stems of a text's tokens and the quantity keys of the values it prints
    (``units.quantity_keys``); cached because pages are scored again and again."""
    tokens = tokenize(text)
    return frozenset(stem(t) for t in tokens) | part_stems(tokens) | quantity_keys(text)


_JOINER = re.compile(r"[.\-/+]")
_DEGREES = re.compile(r"°\s?([cf])\b")
_LETTERS = re.compile(r"[a-z]{3,}")


def part_stems(tokens: Sequence[str]) -> frozenset[str]:
    """The stems of the words inside joined tokens: a list's "3.Blue", a label's
    "Power/Volume", a "Light-Emitting" hold "blue", "volume" and "emitting" too, as they
    do for the full-text index (which splits at punctuation), and a menu's "LIST1" holds
    "list" (letter runs of three or more in a token that mixes letters and digits). The
    joined token itself stays, so a question's code ("li-ion", "13.8") still meets it
    whole."""
    words: list[str] = []
    for token in tokens:  # one pass: this runs on every line a search re-scores
        if token.isalpha() or token.isdigit():
            continue
        words += _LETTERS.findall(token) if token.isalnum() else joined_words(token)
    return frozenset(map(stem, words)) if words else _NO_STEMS


_NO_STEMS: frozenset[str] = frozenset()


def joined_words(token: str) -> list[str]:
    """The words a token joins with punctuation ("power/volume" -> power, volume; "3.blue"
    -> blue); none for a plain word or a number."""
    if not _JOINER.search(token):
        return []
    return [part for part in _JOINER.split(token) if len(part) > 1 and part.isalpha()]


def alias_map(terms: Sequence[str]) -> dict[str, str]:
    """What on a page stands for a question term: the quantity key of a term that names
    a quantity ("voltage" is found as "13.8 V"), mapped to the term's stem."""
    out: dict[str, str] = {}
    for term in terms:
        key = asked_key(term)
        if key is not None:
            out.setdefault(key, stem(term))
    return out


@lru_cache(maxsize=100_000)
def stem(token: str) -> str:
    """The Porter stem of a word (the algorithm of FTS5's ``porter`` tokenizer, so a stem
    here is a term of the full-text index); codes and numbers are kept as they are."""
    if len(token) <= 3 or not token.isalpha():
        return token
    return _porter(token)


def index_term(word: str) -> str:
    """The term the full-text index holds a word as: FTS5's ``porter`` tokenizer stems
    words of three letters too ("key" -> "kei", "use" -> "us"), which ``stem`` keeps
    whole. How many chunks or pages hold a word is asked of the index by this term: by
    ``stem``, "key" would be a word no manual prints."""
    if len(word) == 3 and word.isalpha():
        return _porter(word)
    return stem(word)


@lru_cache(maxsize=100_000)
def _porter(word: str) -> str:
    # A library's vocabulary is small next to its text: a page re-scored stems the same
    # few thousand words again and again, and the stemmer's lock is then taken once each.
    with _STEM_LOCK:  # a PyStemmer object is not thread-safe
        return str(_STEMMER.stemWord(word))


def content_terms(text: str) -> list[str]:
    """A question's content words, in order, one per stem: "what counts as a long press,
    and how do I count it" weighs "count" once, not once per form."""
    seen: dict[str, str] = {}
    for token in tokenize(text):
        if token not in STOPWORDS and (len(token) > 1 or token.isdigit() or not token.isalnum()):
            seen.setdefault(stem(token), token)
    return list(seen.values())


# A word of a product's name ("Hybrid", "EVB", "685") names it in a question when its
# manual holds at least this share of the library's pages that print the word. A library of
# one trade may have no other manual that prints it at all; a van's library of several
# trades has manuals that print any word now and then ("a hybrid control panel" in another
# maker's manual), while the product's own manual prints its name on page after page.
NAME_SHARE = 0.75


def product_names(
    documents: Sequence[DocumentInfo],
    pages_with: Callable[[str], Mapping[int, int]] | None = None,
) -> dict[int, frozenset[str]]:
    """The words and phrases that name each document's product in a question.

    The whole product name always does, and so does its model code (``hsgw-max8``). A
    single word of the name (a maker, a series, a model number such as "685" or an
    acronym such as "EVB") does only when it is distinctive: three characters or more, not
    part of another manual's product name, and printed mostly by its own manual: at least
    ``NAME_SHARE`` of the pages that print it are its manual's (``pages_with``: each
    manual's pages that print a word). That is what makes a word generic ("series",
    "unit"): other manuals print it as much. Without ``pages_with`` no single word names
    a product, since nothing can tell which are generic.
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
            if len(p) >= 3 and p not in STOPWORDS
        }
    if pages_with is None:
        return {doc_id: frozenset(n for n in found if n) for doc_id, found in names.items()}
    for doc_id, parts in parts_of.items():
        others = set().union(*(v for k, v in parts_of.items() if k != doc_id))
        for part in parts - others:
            pages = pages_with(part)
            total = sum(pages.values())
            if not total or pages.get(doc_id, 0) >= NAME_SHARE * total:
                names[doc_id].add(part)
    return {doc_id: frozenset(n for n in found if n) for doc_id, found in names.items()}


# A manual's own pages print the word that says what kind of thing its product is on this
# many pages at least: a word of its file name they never print ("scanned") says nothing.
KIND_PAGES = 3
# A kind is distinctive when its manual prints it on this many times the share of its pages
# that any other manual does: a long manual prints any word on more pages ("radio" on 9 of
# a 70-page controller's, against 12 of a 14-page radio's).
KIND_DENSITY = 3.0
# A kind names a manual after an article or a possessive ("the radio", "this old tuner",
# "our drive") at most this many words before it: "I want to drive the relay" names no
# drive.
KIND_REACH = 3
# English articles and possessives.
_DETERMINERS = frozenset("a an the this that these those my our your its his her their".split())
_KIND_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def kind_names(
    documents: Sequence[DocumentInfo], pages_with: Callable[[str], Mapping[int, int]]
) -> dict[int, frozenset[str]]:
    """The word that says what kind of thing each manual's product is, where one does:
    the last word of its title, or of its file name, leaving out the words that say what
    kind of document it is (``MANUAL_WORDS``: "manual", "guide") and the words its pages
    print on fewer than ``KIND_PAGES`` pages ("Air Source Heat Pump User Manual": "pump";
    "TWO-WAY RADIO": "radio"; "AC Servo Drive Series": "drive"). It names the manual
    only when it is distinctive: in no other manual's title or file name, and printed on
    ``KIND_DENSITY`` times the share of its manual's pages that any other manual prints
    it on. A library of two pumps' manuals names neither by "the pump", and one of a
    single manual needs no kind to tell which.
    """
    if len(documents) < 2:
        return {}
    sources = {d.id: (d.title, d.file_name.rsplit(".", 1)[0]) for d in documents}
    size = {d.id: max(d.pages, 1) for d in documents}
    words = {
        doc_id: [
            [w for w in _KIND_WORD.findall(s.lower().replace("_", " ")) if len(w) >= 3]
            for s in both
        ]
        for doc_id, both in sources.items()
    }
    kinds: dict[int, frozenset[str]] = {}
    for doc_id, lists in words.items():
        others = {w for k, v in words.items() if k != doc_id for ws in v for w in ws}
        found = set()
        for ws in lists:
            for word in reversed([w for w in ws if w not in MANUAL_WORDS]):
                pages = pages_with(word)
                own = pages.get(doc_id, 0)
                if own < KIND_PAGES:
                    continue
                # Of the other manuals: pages of documents not listed are not counted.
                others_share = (n / size[d] for d, n in pages.items() if d != doc_id and d in size)
                share = max(others_share, default=0.0)
                if word not in others and own / size[doc_id] >= KIND_DENSITY * share:
                    found.add(word)
                break
        if found:
            kinds[doc_id] = frozenset(found)
    return kinds


def _named_by_kind(text: str, kinds: Mapping[int, frozenset[str]]) -> list[int]:
    """The manuals whose kind (``kind_names``) the question writes after an article or a
    possessive (``KIND_REACH``)."""
    words = _KIND_WORD.findall(text.lower())
    found: list[int] = []
    for i, word in enumerate(words):
        if not _DETERMINERS.intersection(words[max(0, i - KIND_REACH) : i]):
            continue
        found += [d for d, names in kinds.items() if word in names and d not in found]
    return found


def analyse(
    text: str,
    documents: Sequence[DocumentInfo],
    names: Mapping[int, frozenset[str]] | None = None,
    kinds: Mapping[int, frozenset[str]] | None = None,
) -> QueryAnalysis:
    """Terms, identifiers, asked quantities and named products of a question. ``names`` are the
    product names of each document (``product_names``); computed here when not given. A
    question that names no product by its name may name one by its kind (``kinds``:
    ``kind_names``; "the radio" in a library of one radio's manual)."""
    names = product_names(documents) if names is None else names
    # A degree sign before a lower-case "c" or "f" ("-15 °c", typed on a phone) is the
    # Celsius or Fahrenheit symbol: nothing else is written so.
    text = _DEGREES.sub(lambda m: "°" + m.group(1).upper(), text)
    idents = []
    product_words = {
        w for d in documents for w in re.split(r"[\s/-]+", d.profile.product.lower()) if w
    } | {d.profile.product.lower() for d in documents}
    # Values with a unit pint knows ("13.8 V", "500 mA") are matched as printed too, without
    # the full stop that ends the sentence ("give out 12 V."; "BOGP-3 in the evenings" is
    # no value: ``printed_values``).
    quantities = [m.group(0).rstrip(".") for m, _ in printed_values(text)]
    for value in [*quantities, *(m.group(0) for m in _IDENT.finditer(text))]:
        value = value.strip()
        low = value.lower()
        if low in STOPWORDS or value in idents or len(value) < 2 or low in product_words:
            continue
        if value.isalpha() and value.isupper() and len(value) <= 3:
            continue  # bare acronyms (AC, LED, SMS) are ordinary terms, not identifiers
        idents.append(value)
    terms = content_terms(text)
    products = _named_products(text, names)
    by_kind = _named_by_kind(text, kinds) if kinds and not products else []
    # A code that names a product the question names ("the DYN2 drive") says which manual,
    # as the product does; it is not a code to look for on that manual's pages.
    naming = {code_key(n) for p in products for n in names.get(p, frozenset())}
    idents = [i for i in idents if code_key(i) not in naming]
    return QueryAnalysis(
        text=text,
        terms=tuple(terms),
        identifiers=tuple(idents),
        quantities=_asked_quantities(text),
        products=tuple(products or by_kind),
        by_kind=tuple(by_kind),
        parts=tuple(tuple(p) for p in asked_parts(text)),
        procedures=tuple(tuple(p) for p in asked_procedures(text)),
    )


# English interrogatives: a question's thing asked for follows them ("what fuse rating",
# "how many amps", "which terminal").
_ASKING = ("what", "which", "how")
_JOINING = ("and", "or")
_AUXILIARY = ("do", "does", "did")
# A noun phrase names its thing within a few words ("dump resistor wattage"); what follows
# is the rest of the sentence ("key sends medical ...").
MAX_ASKED_WORDS = 3


def asked_words(text: str) -> list[str]:
    """The content words of the phrases that say what a question asks for
    (``asked_parts``, flattened)."""
    return list(dict.fromkeys(w for part in asked_parts(text) for w in part))


def asked_parts(text: str) -> list[list[str]]:
    """The phrases that say what a question asks for, as lists of content words.

    "I'm running a new supply to a BLN-018TC1 with a 12 V feed: what fuse rating and what
    cable size does it need?" asks for a fuse rating and a cable size; the 12 V and the
    supply are what the technician already knows. A phrase starts after an interrogative
    ("what", "which", "how" and its measure word; after "what" and "which" a copula and
    article are skipped: "what is the operating range", but "what does it do" asks for no
    named thing) and runs over content words up to the next function word, at most
    ``MAX_ASKED_WORDS`` words: the last ones of a longer noun phrase before a verb ("what
    maximum inlet water pressure does it take"), else the first; "and"/"or" start another
    part of it. A question with no interrogative ("Give me the torque for the clamp
    screws") asks for all of its content words, a yes-or-no question for nothing.
    """
    # A comma in what is asked lists things ("the user PIN, master code and installer
    # code"), as "and" does.
    tokens = tokenize(text.replace(",", " and "))
    if not any(t in _ASKING for t in tokens):
        # "Will it keep working for every visit?" asks yes or no, not for a thing; typed
        # without its question mark, its last sentence still starts with the verb.
        return [] if text.rstrip().endswith("?") or _asks_yes_or_no(text) else [content_terms(text)]
    parts: list[list[str]] = []
    i = 0
    while i < len(tokens):
        if tokens[i] not in _ASKING:
            i += 1
            continue
        skipping = tokens[i] != "how"
        part: list[str] = []
        # After "how" comes what is measured ("how long", "how many"), a word the answer
        # does not print: the thing asked for follows it ("how many amps").
        i += 2 if tokens[i] == "how" else 1
        while i < len(tokens):
            token = tokens[i]
            if token in _ASKING or (skipping and token in _AUXILIARY):
                break  # "what does the manual say": the interrogative is the object
            if len(token) == 1 and token.isalpha() and token not in STOPWORDS:
                pass  # the "s" of "what's"
            elif token not in STOPWORDS:
                if len(part) == MAX_ASKED_WORDS:
                    # A long noun phrase names its thing with its last words: the first
                    # item of a list ("the factory default user PIN, master code and
                    # ...": "user PIN"), and the subject or object of a verb still to
                    # come ("what maximum inlet water pressure does it take": "pressure").
                    # Content words running on to an article or a preposition end in a
                    # verb ("how many failed login attempts lock the screen"): the first
                    # words are the phrase.
                    end = _phrase_end(tokens, i)
                    if end >= len(tokens) or tokens[end] not in _BEFORE_VERB:
                        break
                    part = [*part, *tokens[i:end]][-MAX_ASKED_WORDS:]
                    i = end
                    continue
                part.append(token)
                skipping = False
            elif token in _JOINING and i + 1 < len(tokens) and tokens[i + 1] not in STOPWORDS:
                if part:
                    parts.append(part)
                part = []
            elif not skipping:
                break
            i += 1
        if part:
            parts.append(part)
    return parts


_MODAL = ("do", "does", "did", "can", "could", "should", "would", "will", "must")
# The verbs a question asking yes or no starts with ("Is it...", "Can I...", "Has it...").
_YES_OR_NO = frozenset((*_MODAL, "is", "are", "was", "were", "has", "have", "may", "shall"))
# What ends a noun phrase that a verb follows: an auxiliary, a modal or a copula ("what
# pressure *does* it take", "which codes *should* I expect"), or "and"/"or", before the
# list's next item or another question ("what service code *and* how do I enter it").
_BEFORE_VERB = frozenset((*_YES_OR_NO, *_JOINING))
_SENTENCE_END = re.compile(r"[.!?:;]\s+")


def _asks_yes_or_no(text: str) -> bool:
    """Whether a question's last sentence starts with a verb asking yes or no ("can button
    learning put them in area 2"), not an imperative ("do not ..." is one)."""
    last = [s for s in _SENTENCE_END.split(text.strip()) if s.strip()][-1:]
    words = last[0].lower().split()[:2] if last else []
    return bool(words) and words[0] in _YES_OR_NO and words[1:2] != ["not"]


def asked_procedures(text: str) -> list[list[str]]:
    """The procedures a question asks for, as the words of what each acts on: "How do I
    set the demand period, and where do I read the peak current?" asks how to set the
    demand period (``["set", "demand", "period"]``). A procedure names no thing to be
    given a value of, so these are not ``asked_parts``: its answer is the step that
    does it."""
    tokens = tokenize(text.replace(",", " and "))
    found = []
    for i, (how, modal) in enumerate(pairwise(tokens)):
        if how == "how" and modal in _MODAL and (words := _procedure(tokens, i + 2)):
            found.append(words)
    return found


def _procedure(tokens: Sequence[str], i: int) -> list[str]:
    """The verb and object of "how do I <verb> <object>" from ``i``: the subject's
    function words skipped, then the verb, the function words after it ("into the"), and
    the object's content words up to the next function word, at most
    ``MAX_ASKED_WORDS`` of them."""
    while i < len(tokens) and tokens[i] in STOPWORDS and tokens[i] not in _ASKING:
        i += 1
    if i >= len(tokens) or tokens[i] in _ASKING or not tokens[i].isalpha():
        return []
    part = [tokens[i]]
    i += 1
    while i < len(tokens) and tokens[i] in STOPWORDS and tokens[i] not in _ASKING:
        i += 1
    thing: list[str] = []
    while i < len(tokens) and tokens[i] not in STOPWORDS and tokens[i] not in _ASKING:
        thing.append(tokens[i])
        i += 1
    return part + thing[:MAX_ASKED_WORDS]


def measure_words(text: str) -> frozenset[str]:
    """The words that say what is measured after "how" ("how *long*", "how *many* amps"):
    a question's terms, but not words its answer prints ("hold it for 10 seconds")."""
    tokens = tokenize(text)
    return frozenset(b for a, b in pairwise(tokens) if a == "how" and b not in STOPWORDS)


def _phrase_end(tokens: Sequence[str], i: int) -> int:
    """Where the run of content words from ``i`` ends."""
    while i < len(tokens) and tokens[i] not in STOPWORDS and tokens[i] not in _ASKING:
        i += 1
    return i


def _asked_quantities(text: str) -> tuple[str, ...]:
    """Quantities the words of what the question asks for name ("what voltage", "how many
    amps"; ``asked_words``), and its unit symbols there written with both cases ("mAh",
    "kHz"), which are units rather than words or acronyms. Values and quantities told as
    circumstance ("with a 12 V feed") are not asked for. "How long" asks for a time
    (``units.measure_keys``)."""
    asked = asked_words(text)
    # "How many" counts things: a quantity's name right after it ("how many charge
    # cycles") says what kind of thing is counted, only a unit's name ("how many amps")
    # the quantity asked for.
    counted = {
        w.lower()
        for w in _HOW_MANY.findall(text)
        if not (names_unit(w.lower()) or names_unit(w.lower()[:-1]))
    }
    keys = [
        k
        for t in asked
        if (k := (None if t in counted else asked_key(t)) or _asked_unit(t)) is not None
    ]
    for adjective in _HOW.findall(text):
        keys.extend(measure_keys(adjective))
    keys.extend(asked_symbols(text, asked).values())
    if asks_ingress(text):
        keys.append(INGRESS)
    return tuple(dict.fromkeys(keys))


def asked_symbols(text: str, asked: Sequence[str] | None = None) -> dict[str, str]:
    """The unit symbols among what a question asks for that it writes with both cases
    ("mAh", "kHz": units rather than words or acronyms), lower-cased, with the quantity
    key of each. ``asked``: the question's ``asked_words``, when already known."""
    wanted = set(asked_words(text) if asked is None else asked)
    out = {}
    for token in re.findall(r"[A-Za-z]{2,5}", text):
        mixed = any(c.isupper() for c in token[1:]) and not token.isupper()
        if mixed and token.lower() in wanted and (k := unit_key(token)) is not None:
            out[token.lower()] = k
    return out


_HOW = re.compile(r"\bhow\s+(?:much\s+)?([a-z]+)\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\s+([a-z]+)\b", re.IGNORECASE)


def _asked_unit(word: str) -> str | None:
    """The quantity of a unit named in the plural where a question says what it asks for
    ("how many hours", "how many metres"): times and lengths, which ``asked_key`` leaves
    out of ordinary words, are plainly asked for there."""
    if len(word) < 4 or not word.endswith("s") or not word.isalpha():
        return None
    if not names_unit(word[:-1]):
        return None  # "pins" is not pico-inches
    key = unit_key(word[:-1])
    return key if key not in (None, "⟨[]⟩") else None


def _named_products(text: str, names: Mapping[int, frozenset[str]]) -> list[int]:
    """Documents whose product name (or a distinctive part of it) the question mentions,
    a model code however it is written ("DYN 2", "dyn-2", "BOGP3", "uv k5": ``_written_codes``),
    a name's word joined to the digits of a model ("BLN012TC1" names the BLN), and the first
    words of a name written as one code ("DPC240" names the "DP C240 CAN")."""
    lowered = " ".join(text.lower().replace("_", " ").split())
    written = _written_codes(lowered)
    return [
        doc_id
        for doc_id, found in names.items()
        if any(
            re.search(rf"(?<![\w-]){re.escape(n)}(?![\w])", lowered)
            or (is_code(n) and code_key(n) in written)
            or any(_starts_code(w, code_key(n)) for w in written)
            or any(code_key(run) in written for run in _leading_codes(n))
            for n in found
        )
    ]


def _leading_codes(name: str) -> list[str]:
    """The first two words or more of a product's name that make a code ("dp c240" and
    "dp c240 can" of "dp c240 can"; none of a name without digits): a technician
    writes a name's model without its spaces ("DPC240"), as no manual of it may print."""
    words = name.split()
    runs = (" ".join(words[:k]) for k in range(2, len(words) + 1))
    return [run for run in runs if is_code(run)]


def _starts_code(code: str, name: str) -> bool:
    """Whether a written code is a product's name with more of a model after it, written
    without a hyphen: a name's word then digits ("bln012tc1" of the BLN), a model code
    then letters ("sdm630mcttcp" of the SDM630MCT; "c2400" is no C240)."""
    if len(name) < 3 or len(code) <= len(name) or not code.startswith(name):
        return False
    after = code[len(name)]
    if name.isalpha():
        return after.isdigit()
    return is_code(name) and len(name) >= 4 and after.isalpha()


def _written_codes(lowered: str) -> set[str]:
    """The codes a lower-cased question writes, each without its separators: a word, or up
    to three words joined by hyphens or spaces ("dyn 2", "uv k5", "bogp-3"). Across a space
    the first word is of two letters or more, so "25 °C 240 V" writes no "c240"."""
    words = list(re.finditer(r"[a-z0-9]+", lowered))
    out = set()
    for i, first in enumerate(words):
        joined, end = first.group(), first.end()
        for nxt in words[i + 1 : i + 3]:
            gap = lowered[end : nxt.start()]
            spaced = gap == " " and sum(c.isalpha() for c in first.group()) >= 2
            if gap != "-" and not spaced:
                break
            joined, end = joined + nxt.group(), nxt.end()
            if is_code(joined):
                out.add(joined)
        if is_code(first.group()):
            out.add(first.group())
    return out


def fts_query(terms: Sequence[str], extra: Sequence[str] = ()) -> str:
    """An FTS5 OR-query over terms; multi-part tokens (13.8, HSGW-MAX8) become phrases.

    The index's Porter tokenizer stems both sides, so "charging" meets "charged";
    ``extra`` words, OCR misreadings of the terms, are matched too."""
    return " OR ".join(f'"{phrase}"' for phrase in fts_phrases(terms, extra))


def fts_phrases(terms: Sequence[str], extra: Sequence[str] = ()) -> list[str]:
    """The phrases of ``fts_query``, without their quotes, once each in order."""
    parts = []
    for term in terms:
        pieces = re.findall(r"[A-Za-z0-9]+", term)
        if pieces:
            parts.append(" ".join(pieces))
    parts += [w for w in extra if re.fullmatch(r"[A-Za-z0-9]+", w)]
    return list(dict.fromkeys(parts))
