"""The no-LLM answerer: quote the sentences that answer the question, with citations.

Candidate units are the sentences of the best pages' chunks (a table row is one unit,
read under its table's header band). Each is scored by how much of the question's term
weight it holds (identifiers and values of the asked quantity count extra), by its chunk's
closeness in meaning to the question (the chunk vector stored at import: nothing is embedded
to score), and by its page's rank. The best few become the answer, in page order. Whether the
evidence answers at all is the abstention model's call (``abstention``; to tell whether a
quoted value of the asked quantity is about what is asked, the lines that print one are
embedded, one at a time, ``_closest_line``): below its threshold
the answer says the manuals do not say, and what was searched; in a band above it, the
quotes come with a caution that the manual may not state it exactly.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from app.agent.abstention import (
    RELATED_ENOUGH,
    AnswerSignals,
    answerable,
    caution,
    verdict,
)
from app.library.chunking import filled_cells
from app.library.models import Box, TextLine, union_box
from app.library.profile import MANUAL_WORDS
from app.library.store import Store
from app.retrieval.query import (
    CODE_WORD,
    QueryAnalysis,
    asked_symbols,
    code_key,
    is_code,
    joined_words,
    measure_words,
    stem,
    stems_of,
    tokenize,
)
from app.retrieval.regions import is_contents_line
from app.retrieval.terms import (
    bare_number,
    capitalised_words,
    display_code,
    name_runs,
    number_forms,
    one_off,
)
from app.retrieval.text import (
    PageHit,
    SearchResult,
    TextSearch,
    is_section_row,
    table_bands,
)
from app.retrieval.units import (
    asked_key,
    gives_quantity,
    printed_values,
    quantity_keys,
    quantity_name,
)
from app.retrieval.vectors import VectorIndex

_ENDS_SENTENCE = re.compile(r"[.!?:;)\]]\s*$")
_CONTINUES = re.compile(r"^[a-z0-9“\"(]")
# Questions that ask how much of something are answered by lines with a number (those that
# name a quantity, "voltage", are recognised by the unit registry instead).
_WANTS_VALUE = re.compile(r"\bhow (many|long|much|often|far|big|large|high|low)\b", re.I)
_VALUE = re.compile(r"\d")
_CELL_NUMBER = re.compile(r"\|\s*[-+±]?\d")
_BULLET = re.compile(r"^\s*[•●○◦▪■□◆◇►▶➢➤✓✔⚫⚪\-–*·]\s+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(“\"])")
_BRACKETED_NUMBER = re.compile(r"\[(\d+)\]")
SALIENT_TERMS = 2
# A quote for the second thing a question asks for must score this share of the best.
PART_SCORE = 0.4
# What a table row gains whose first cell is a code or number the question names, or
# what it asks for (``_row_about``): the row about "error 10" is the answer, though the
# note that mentions "code 10" after a "long climb" shares more of the question's words.
ROW_KEY = 0.3
# A quote scoring this share of the best fills a place left in the answer (``_fill``).
FILL_SCORE = 0.7
PART_VALUE = 0.1
# A quote runs on into the next unit of its passage only when that one is this short.
NEXT_CHARS = 300
HEDGE_LEAD = "The manuals may not state this exactly; the closest passages:"
# A question needs this many terms the library prints before the others are ignored.
MIN_KNOWN_TERMS = 3


@dataclass(frozen=True, slots=True)
class Citation:
    document: str  # file name
    title: str
    page: int
    regions: tuple[Box, ...]

    def label(self) -> str:
        return f"{self.title} p.{self.page}"


@dataclass(frozen=True, slots=True)
class Evidence:
    """One quotable unit: a sentence or a table row, with where it is."""

    text: str
    page_hit: PageHit
    rank: int  # of its page in the search results
    box: Box
    coverage: float = 0.0
    score: float = 0.0
    context: str = ""  # the sub-heading it sits under, scored with it and shown before it
    chunk_id: int = 0  # the stored chunk it comes from (its vector scores its meaning)
    row: bool = False  # a table row (read under its column headings)
    key: str = ""  # a table row's first cell: what the row is about ("E05", "03", "J24")


@dataclass(frozen=True, slots=True)
class ExtractiveAnswer:
    text: str
    citations: tuple[Citation, ...]
    abstained: bool
    support: float  # share of the question's weight the quoted evidence holds
    evidence: tuple[Evidence, ...] = ()
    signals: AnswerSignals | None = None  # what the abstention decision weighed
    probability: float = 1.0  # that the evidence answers the question
    # The quantities the question asks for that its manuals print no value of anywhere,
    # in the question's words ("torque").
    unprinted: tuple[str, ...] = ()
    # The codes the question names that its manuals never print, though they print
    # others of the same form ("E09" where the error table lists E01 to E08 and E10).
    unlisted: tuple[str, ...] = ()
    # The equipment the question names that no manual of the library mentions, when it
    # names no product of the library ("the Siemens V20"): its manual is not in the library.
    foreign: tuple[str, ...] = ()
    # The quantities asked for that the quotes print only in lines about other things
    # ("how long is the warranty?" quoting a button held for 2 seconds), in the
    # question's words, else the quantity's name ("time").
    unrelated: tuple[str, ...] = ()


def answer_extractively(
    result: SearchResult,
    store: Store,
    idf: dict[str, float],
    max_pages: int = 3,
    max_quotes: int = 4,
    known: Collection[str] | None = None,
    burstiness: Mapping[str, float] | None = None,
    printed: Callable[[int], Collection[str]] | None = None,
    ocr_words: Callable[[int], Collection[str]] | None = None,
    foreign: Sequence[str] = (),
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> ExtractiveAnswer:
    """Quote the best supporting sentences of the top pages, or abstain. ``known`` are
    the question's terms the library holds at all (``TextSearch.known``). Quotes are
    chosen by the terms' weight times their ``burstiness`` (``TextSearch.burstiness``:
    how a question is put weighs little), as pages are ranked; whether to answer is
    judged on the plain weights the abstention model was fitted on. ``foreign`` is the
    equipment no manual of the library mentions (``foreign_equipment``): such a
    question is declined, naming them (after a code its manual lists others like:
    "E09" is better told as missing from the E01-E10 table). ``embed`` (the library's
    embedder) measures how near in meaning the quoted lines that print a value of the
    asked quantity are to the question (``AnswerSignals.related``): the only embedding an
    answer does, of at most the lines it quotes."""
    pages = answer_pages(result, max_pages)
    if printed is not None and pages:
        manuals = {p.document_id for p in pages}
        misread = [ocr_words(m) for m in manuals] if ocr_words is not None else []
        unlisted = unlisted_codes(
            result.query.identifiers, [printed(m) for m in manuals], frozenset().union(*misread)
        )
        if unlisted:
            return replace(_abstain(result, 0.0), unlisted=unlisted)
    if foreign:
        return replace(_abstain(result, 0.0), foreign=tuple(foreign))
    if printed is not None and pages and result.query.quantities:
        # A manual that prints no value of the quantity asked for ("how many mAh")
        # anywhere, nor the question's word for it, does not state it, however well its
        # other words match the question. (A table may print "Torque | 12" with no unit:
        # the word keeps that manual in.)
        held = frozenset().union(*(printed(m) for m in {p.document_id for p in pages}))
        unprinted = tuple(
            q
            for q in result.query.quantities
            if q not in held and not any(_found(w, held) for w in _words_for(result.query, q))
        )
        if unprinted:
            names = tuple(_quantity_asked(result.query.terms, q) for q in unprinted)
            return replace(_abstain(result, 0.0), unprinted=names)
    # A passage a manual prints on two pages is quoted once, from the better-ranked page.
    units = _dedupe([u for rank, hit in enumerate(pages) for u in _units(store, hit, rank)])
    if not units:
        return _abstain(result, 0.0)
    weights = answer_weights(result, idf, known)
    burst = burstiness or {}
    salient = {t: w * burst.get(t, 1.0) for t, w in weights.items()}
    scored = _score(units, result, store, salient)
    measures = measure_words(result.query.text)
    chosen = _select(scored, salient, max_quotes, result.query.quantities, measures)
    # A question that asks for several things has a quote more for each after the first.
    things = len(result.query.parts) + len(result.query.procedures)
    room = max_quotes + max(things - 1, 0)
    kept: list[Evidence] = []
    chosen = _cover_parts(chosen, scored, salient, result.query.parts, max_quotes, room, kept)
    evidence_text = " ".join(store.page_text(p.document_id, p.page) or "" for p in pages)
    support = _coverage(evidence_text, weights)
    signals = answer_signals(result, chosen, support, weights, embed)
    probability = answerable(signals)
    decided = verdict(probability, caution(signals))
    if decided == "abstain":
        declined = _abstain(result, support, signals, probability)
        if signals.unrelated():
            names = tuple(_quantity_asked(result.query.terms, q) for q in result.query.quantities)
            declined = replace(declined, unrelated=tuple(dict.fromkeys(names)))
        return declined
    procedures = result.query.procedures
    chosen = _cover_procedures(chosen, scored, salient, procedures, max_quotes, room, kept)
    chosen = _with_next(_fill(chosen, scored, max_quotes), units)
    return _compose(chosen, support, signals, probability, hedged=decided == "hedge")


_CODE = re.compile(r"[a-z]+\d+|\d+[a-z]+")


def unlisted_codes(
    identifiers: Sequence[str],
    printed: Sequence[Collection[str]],
    ocr_words: Collection[str] = frozenset(),
) -> tuple[str, ...]:
    """The codes among a question's identifiers ("E09", "P12": letters and digits in one
    word, not a value with its unit) that no manual of ``printed`` (what each prints,
    ``TextSearch.printed``) prints, while one of them prints another code of the same
    form: the same letters with as many digits ("E04", "E10"), the number written with a
    leading zero or without alike ("E9" is the table's "E09"). A manual whose error table
    skips E09 does not say what E09 means, however well its other words match the
    question. A code of another form (a part number of other equipment, "TR-1640") says
    nothing of what the manual lists; nor does one a page read by OCR may have misread
    (``ocr_words`` holds a word of its length one character off: "E0S"). A question that
    also names a code the manual prints ("after board B12 was swapped it shows E05") may
    be about that one: none is declined."""
    codes = [i for i in identifiers if _CODE.fullmatch(i.lower()) and not quantity_keys(i)]
    # A code's number may be printed with a leading zero or without ("E5" as "E05").
    ways = {i: [i.lower(), *number_forms(i)] for i in codes}
    if any(w in words for i in codes for w in ways[i] for words in printed):
        return ()
    out = []
    for ident in codes:
        if any(one_off(w, ocr_words) for w in ways[ident]):
            continue
        forms = [re.compile(re.sub(r"\d", r"\\d", w) + r"\Z") for w in ways[ident]]
        if any(f.match(w) for f in forms for words in printed for w in words):
            out.append(ident)
    return tuple(out)


def foreign_equipment(
    query: QueryAnalysis,
    unprinted: Callable[[Sequence[str]], Sequence[str]],
    unknown: Callable[[Sequence[str]], Sequence[str]] | None = None,
    unknown_names: Callable[[Sequence[str]], Sequence[str]] | None = None,
    widespread: Callable[[Sequence[str]], Sequence[str]] | None = None,
) -> tuple[str, ...]:
    """The equipment a question names that no manual of the library mentions, when it
    names no manual's product: its codes ("the Siemens V20", "a KX-400 meter") when no
    manual prints any of them (``unprinted``: ``TextSearch.unprinted_codes``), and its
    runs of capitalised words ("the Daikin Altherma", ``terms.name_runs``) when no manual
    prints a word of them (``unknown``: ``TextSearch.unknown_words``). Such a question is
    about equipment whose manual is not in the library, and a manual that shares its
    other words ("output current") says nothing about it. A value with its unit ("24 V")
    is no code. A single capitalised word names equipment only when neither the library
    nor English knows it (``unknown_names``: ``TextSearch.unknown_names``): "a Heathkit
    tuner" does, "a Siemens meter" does not; nor does the lexicon know every maker of
    tools ("a Fluke meter" reads as other equipment). A number of three digits or more
    that no manual prints (``bare_numbers``: "a model 6160", "error 503") names what no
    manual lists; one a manual prints keeps nothing in. A question that also names a
    product of the library by its name, or a code some manual prints, may be about that
    one: nothing is declined. One named only by its kind (``QueryAnalysis.by_kind``: "the
    Voxtra radio" in a library of one radio's manual) may be another maker's. A code many
    manuals print (``widespread``: ``TextSearch.widespread_codes``) is an interface or a
    standard ("an RS485-to-Ethernet converter"), not equipment: it neither names the
    library's nor keeps a question in."""
    if set(query.products) - set(query.by_kind):
        return ()
    codes = [i for i in query.identifiers if is_code(i) and not _is_value(i)]
    # A model code may start in lower case ("a Schneider iEM3255"), which is no identifier:
    # a word that starts with a letter and holds two letters and three digits is one.
    keys = {code_key(c) for c in codes}
    for token in CODE_WORD.findall(query.text):
        digits, letters = sum(c.isdigit() for c in token), sum(c.isalpha() for c in token)
        if not token[0].isalpha() or digits < 3 or letters < 2:
            continue  # "3x230V" is values
        if code_key(token) not in keys and not _is_value(token):
            codes.append(token)
            keys.add(code_key(token))
    if codes and widespread is not None:
        # "RS485-to-Ethernet" is the interface's, as "RS485" is.
        parts = {c: [p for p in c.split("-") if _CODE.fullmatch(p.lower())] for c in codes}
        asked = [*codes, *(p for found in parts.values() for p in found)]
        common = set(widespread(list(dict.fromkeys(asked))))
        codes = [c for c in codes if c not in common and not common.intersection(parts[c])]
    missing = tuple(unprinted(codes)) if codes else ()
    if len(missing) < len(codes):
        return ()
    # A number the manuals print says nothing (numbers are printed everywhere); one none
    # prints names what no manual lists ("a model 6160", "error 503").
    numbers = bare_numbers(query.text)
    missing += tuple(unprinted(numbers)) if numbers else ()
    if unknown is None:
        return _outermost(missing)
    runs = name_runs(query.text)
    whole = [r for r in runs if len(unknown(r)) == len(r)]
    named = tuple(" ".join(r) for r in whole)
    if unknown_names is None:
        return _outermost(missing + named)
    # One word of a run the library knows another word of ("a Sur-Gard System") still
    # names equipment when nothing knows it.
    single = [w for w in capitalised_words(query.text) if not any(w in r for r in whole)]
    return _outermost(missing + named + tuple(unknown_names(single)))


# A number standing alone: not part of a word, a code or a decimal.
_NUMBER = re.compile(r"(?<![\w.,/*×-])\d+(?![\w*×]|[.,]\d)")
_YEAR = re.compile(r"(?:19|20)\d\d")


def lone_numbers(text: str) -> list[str]:
    """The numbers a text writes alone, in order: not a value with its unit ("500 mA"),
    nor one of a decimal or a code ("4.503", "RS-485")."""
    values = [m.span() for m, _ in printed_values(text)]
    return [
        m.group() for m in _NUMBER.finditer(text) if not any(a <= m.start() < b for a, b in values)
    ]


def bare_numbers(text: str) -> list[str]:
    """The numbers of three digits or more a question writes alone (``lone_numbers``): a
    model's number or a code's ("a model 6160", "error 503"). Not a year ("a 1958 tuner",
    "fitted in 2019")."""
    found = [n for n in lone_numbers(text) if len(n) >= 3 and not _YEAR.fullmatch(n)]
    return list(dict.fromkeys(found))


def _outermost(names: tuple[str, ...]) -> tuple[str, ...]:
    """Names once each, without those part of another ("BPR2-WP12" of "ISC-BPR2-WP12")."""
    lowered = [n.lower() for n in names]
    return tuple(
        n
        for i, n in enumerate(names)
        if lowered[i] not in lowered[:i]
        and not any(lowered[i] in other and lowered[i] != other for other in lowered)
    )


def _is_value(word: str) -> bool:
    """Whether a word is a value with its unit ("24V", "5R"), not a code ("UV-5R")."""
    return any(m.group(0).strip() == word.strip() for m, _ in printed_values(word))


def _words_for(query: QueryAnalysis, key: str) -> list[str]:
    """The words of what a question asks for that name one of its quantities ("what
    torque", "how many amps", "how many mAh"; not the "charge" of "a full charge")."""
    symbols = asked_symbols(query.text, query.asked)
    return [t for t in query.asked if key in (asked_key(t), symbols.get(t))]


def _quantity_asked(terms: Sequence[str], key: str) -> str:
    """The question's word for a quantity it asks for ("torque"), else the quantity's
    name ("charge" for "mAh")."""
    return next((t for t in terms if asked_key(t) == key), quantity_name(key))


def answer_from_search(
    result: SearchResult,
    search: TextSearch,
    store: Store,
    foreign: Sequence[str] | None = None,
) -> ExtractiveAnswer:
    """``answer_extractively`` with the weights ``search`` reads from its library for the
    question's terms: their IDF, which of them the library holds, their burstiness. The
    equipment no manual mentions is read from the search's query unless given
    (``foreign_in``: the agent reads it once, from the question as written)."""
    terms = result.query.terms
    if foreign is None:
        foreign = foreign_in_query(result.query, search)
    return answer_extractively(
        result,
        store,
        search._idf(terms),
        known=search.known(terms),
        burstiness={t: search.burstiness(t) for t in terms},
        printed=search.printed,
        ocr_words=search.ocr_words,
        foreign=foreign,
        embed=search.embed_lines,
    )


def best_lines(
    result: SearchResult, search: TextSearch, store: Store, pages: Sequence[PageHit]
) -> dict[tuple[int, int], float]:
    """The score of the best line or table row of each of ``pages`` as a quote for the
    question (``_score``, as ``answer_from_search`` weighs its terms, less its page's
    rank): what the page's best passage holds of the question, with its heading, its
    chunk's meaning, the codes it prints, the row about what is named or asked, the value
    of the asked quantity. A page's rank says how it reads as a whole; this, how its one
    best line answers. (``LibrarySearch`` orders the first pages by both.)"""
    terms = result.query.terms
    weights = answer_weights(result, search._idf(terms), search.known(terms))
    burst = {t: search.burstiness(t) for t in terms}
    salient = {t: w * burst.get(t, 1.0) for t, w in weights.items()}
    units = [u for hit in pages for u in _units(store, hit, 0)]
    best: dict[tuple[int, int], float] = {}
    for unit in _score(units, result, store, salient):
        key = (unit.page_hit.document_id, unit.page_hit.page)
        best.setdefault(key, unit.score)  # scored best first
    return best


def foreign_in(question: str, search: TextSearch) -> tuple[str, ...]:
    """``foreign_equipment`` of a question as the technician wrote it."""
    return foreign_in_query(search.analyse(question), search)


def foreign_in_query(query: QueryAnalysis, search: TextSearch) -> tuple[str, ...]:
    """``foreign_equipment`` of an analysed question, asking ``search``'s library."""
    return foreign_equipment(
        query,
        search.unprinted_codes,
        search.unknown_words,
        search.unknown_names,
        search.widespread_codes,
    )


def answer_pages(result: SearchResult, limit: int = 3) -> list[PageHit]:
    """The pages to quote: the best ones of the best page's manual, and of any other
    manual the question names ("compare the batteries of A and B"). A question is about
    one piece of equipment; a passage of another manual that shares its words ("press and
    hold", "fuse") answers a question nobody asked. So when the question names its
    equipment, only the manuals of what it names are quoted, even when another manual's
    page ranks first: what that page says is not about the equipment asked about. The
    page after the best one joins them when the search found it too: a passage runs on
    over a page break."""
    manuals = answer_manuals(result)
    pages = [p for p in result.pages[: limit * 3] if p.document_id in manuals][:limit]
    if not pages:
        return []
    first = pages[0]
    after = [
        p for p in result.pages if p.document_id == first.document_id and p.page == first.page + 1
    ]
    return pages + [p for p in after[:1] if p not in pages]


def answer_manuals(result: SearchResult) -> set[int]:
    """The manuals an answer may quote: those the question names, else the best page's."""
    if result.query.products:
        return set(result.query.products)
    return {result.pages[0].document_id} if result.pages else set()


def answer_signals(
    result: SearchResult,
    chosen: list[Evidence],
    support: float,
    weights: dict[str, float],
    embed: Callable[[list[str]], np.ndarray] | None = None,
) -> AnswerSignals:
    """What the abstention model weighs (``abstention``)."""
    wanted = set(result.query.quantities)
    quantity, related = 0.0, 1.0
    if wanted:
        giving = [u for u in chosen if gives_quantity(f"{u.context} {u.text}", wanted)]
        quantity = 1.0 if giving else -1.0
        if giving and embed is not None and result.query_vector is not None:
            related = _closest_line(giving, result.query_vector, embed)
    best = max((_coverage(f"{u.context} {u.text}", weights) for u in chosen), default=0.0)
    rank_score = result.pages[0].score if result.pages else 0.0
    rarest = sorted(weights, key=lambda t: -weights[t])[:SALIENT_TERMS]
    quoted = _stems(" ".join(f"{u.context} {u.text}" for u in chosen))
    salient = sum(_found(t, quoted) for t in rarest) / len(rarest) if rarest else 0.0
    # What the quotes miss of what is asked, as a share of the question's weight: a
    # missing rare word ("which Modbus *register*") weighs, a generic one ("what
    # *setting*") hardly.
    missing = sum(
        w for t, w in weights.items() if t in result.query.asked and not _found(t, quoted)
    )
    asked = 1.0 - missing / (sum(weights.values()) or 1.0)
    return AnswerSignals(
        round(support, 4),
        round(best, 4),
        quantity,
        rank_score,
        salient,
        round(asked, 4),
        round(related, 4),
    )


def _closest_line(
    units: Sequence[Evidence], question: np.ndarray, embed: Callable[[list[str]], np.ndarray]
) -> float:
    """The highest cosine between the question and the lines of ``units``, each embedded
    alone: its text, not its heading (a heading such as "Technical Parameters" is near
    every question about the equipment, and the line is what says what the value is of).
    One line at a time, best quote first, until one is ``RELATED_ENOUGH``: a line costs
    about 25 ms to embed here, and the first is near enough for most questions.
    """
    if not np.any(question):
        return 1.0  # no meaning to compare (the embedder could not run): not measured
    best = -1.0
    for unit in units:
        vector = np.asarray(embed([unit.text]), dtype=np.float32)
        if vector.ndim != 2 or vector.shape[1] != question.shape[0] or not np.any(vector):
            return 1.0  # another embedder's vectors, or none: not measured
        best = max(best, float(vector[0] @ question))
        if best >= RELATED_ENOUGH:
            break
    return best


def _select(
    scored: list[Evidence],
    weights: dict[str, float],
    limit: int,
    wanted: Collection[str] = (),
    unprinted: Collection[str] = (),
) -> list[Evidence]:
    """Greedy: the best unit, then those that add question terms not yet covered, so a
    question about three codes gets the three lines that hold them. A question that asks
    for a quantity (``wanted`` keys) gets the best unit that prints one, if close enough."""
    chosen = _greedy(scored, weights, limit, wanted, unprinted)
    held = [u for u in chosen if gives_quantity(u.text, wanted)]
    if wanted and not held:
        best = scored[0].score
        extra = next((u for u in scored[1 : limit * 6] if gives_quantity(u.text, wanted)), None)
        if extra is not None and extra.score >= 0.5 * best:
            chosen = [*chosen[: limit - 1], extra]
    return chosen


def _cover_parts(
    chosen: list[Evidence],
    scored: list[Evidence],
    weights: dict[str, float],
    parts: Sequence[Sequence[str]],
    limit: int,
    room: int | None = None,
    kept: list[Evidence] | None = None,
) -> list[Evidence]:
    """A question that asks for two things ("what fuse rating and what cable size") gets a
    quote for each: a part's key is its rarest word that some candidate quote prints, and
    the best candidate that prints it is quoted (``_quote_also``: up to ``room`` quotes,
    then in place of the weakest). A question that asks for one thing gets such a quote
    only when none of the chosen quotes prints a value beside its key. Only a quote's own
    text counts: a heading names a topic ("Power Cable And Signal Wire Connection"), not
    the value asked for. ``kept`` collects the quotes each part is answered by."""
    if not parts or not scored:
        return chosen
    room = limit if room is None else room
    kept = [] if kept is None else kept
    pool = [u for u in scored[: limit * 8] if u.score >= PART_SCORE * scored[0].score]
    printed = [_stems(u.text) for u in pool]
    for part in parts:
        words = sorted((w for w in part if w in weights), key=lambda w: -weights[w])
        key = next((w for w in words if any(_found(w, st) for st in printed)), None)
        if key is None:
            continue
        # The best that prints the key, a value beside it first: "what cable size" is
        # answered by "Power Cable (mm²) | 4.00", not by "Secure the cable with a clamp".
        holding = [u for u, st in zip(pool, printed, strict=True) if _found(key, st)]
        if len(parts) == 1:
            # One thing asked: the quotes answer it unless none prints a value beside its
            # words ("what restart times can I set": the restart time's line with
            # "1, 3, 5, 10, or 15 minutes", not only the one that says what it does).
            if any(_prints_value(u.text) and _found(key, _stems(u.text)) for u in chosen):
                continue
            holding = [u for u in holding if _prints_value(u.text)]
            if not holding:
                continue
        extra = max(holding, key=lambda u: u.score + PART_VALUE * _prints_value(u.text))
        chosen = _quote_also(chosen, extra, room, kept)
    return chosen


def _quote_also(
    chosen: list[Evidence], extra: Evidence, room: int, kept: list[Evidence]
) -> list[Evidence]:
    """``chosen`` with ``extra``, quoted for one of the things a question asks for: added
    while there are fewer than ``room`` quotes, else in place of the last one chosen (the
    weakest the greedy choice took) that is neither the best nor one quoted for another
    thing asked (``kept``, which ``extra`` joins). A question that asks for the supply
    voltage, the fuse rating and the cable size keeps each one's line; with no quote left
    to give way, the thing goes without."""
    if extra not in chosen:
        if len(chosen) < room:
            chosen = [*chosen, extra]
        else:
            spare = [i for i, u in enumerate(chosen) if i and u not in kept]
            if not spare:
                return chosen
            chosen = [*chosen[: spare[-1]], *chosen[spare[-1] + 1 :], extra]
    kept.append(extra)
    return chosen


def _cover_procedures(
    chosen: list[Evidence],
    scored: list[Evidence],
    weights: dict[str, float],
    procedures: Sequence[Sequence[str]],
    limit: int,
    room: int | None = None,
    kept: list[Evidence] | None = None,
) -> list[Evidence]:
    """A question that asks how to do something ("how do I set the demand period") gets
    the quote that holds most of what the procedure acts on ("Demand Interval Time setup:
    press ... to set the demand period value"), when no chosen quote holds as much: a
    passage that only mentions the topic ("maximum demand can be measured over preset
    periods") does not say how. Only candidates scoring at least ``PART_SCORE`` of the best
    are weighed; the new quote is added as a part's is (``_quote_also``). It is added after
    the answer is decided on, so it changes no decline and no caution."""
    if not procedures or not scored:
        return chosen
    room = limit if room is None else room
    kept = [] if kept is None else kept
    pool = [u for u in scored[: limit * 8] if u.score >= PART_SCORE * scored[0].score]
    stems = {id(u): _stems(u.text) for u in [*pool, *chosen]}
    for procedure in procedures:
        words = [w for w in procedure if weights.get(w, 0.0) > 0]
        if not words:
            continue
        held = {k: sum(weights[w] for w in words if _found(w, st)) for k, st in stems.items()}
        best = max(pool, key=lambda u: (held[id(u)], u.score))
        if best in chosen or held[id(best)] <= max((held[id(u)] for u in chosen), default=0.0):
            continue
        chosen = _quote_also(chosen, best, room, kept)
    return chosen


def _with_next(chosen: list[Evidence], units: list[Evidence]) -> list[Evidence]:
    """Each quote that names the topic without settling it runs on into the next unit of
    its passage: the best quote, and any quote that prints no value. A manual often gives
    the value, the setting's name or the state in the sentence after the one that holds
    the question's words ("To reset it, hold the key." then "Hold for 5 s; the LED
    blinks."). Table rows do not run on: the next row is another row's value. Measured
    on both development corpora: key facts rose on every set, answers grew ~6%; running
    every quote on made them ~10% longer still, for no gain on the second corpus."""
    where = {(u.chunk_id, u.text): i for i, u in enumerate(units)}
    taken = set(where) & {(u.chunk_id, u.text) for u in chosen}
    best = max(chosen, key=lambda u: u.score)
    out = []
    for unit in chosen:
        i = where.get((unit.chunk_id, unit.text))
        after = units[i + 1] if i is not None and i + 1 < len(units) else None
        if (
            after is not None
            and (unit is best or not _VALUE.search(unit.text))
            and after.chunk_id == unit.chunk_id
            and not (unit.row or after.row or "→" in unit.text + after.text)
            and len(after.text) <= NEXT_CHARS
            and (after.chunk_id, after.text) not in taken
        ):
            taken.add((after.chunk_id, after.text))
            box = union_box([unit.box, after.box])
            unit = replace(unit, text=f"{unit.text} {after.text}", box=box)
        out.append(unit)
    return out


def _prints_value(text: str) -> bool:
    """A value with its unit ("13.8 V") or a number in a table cell ("| 4.00"); a list
    item's number ("1. Remove the cover") is not one."""
    return bool(quantity_keys(text)) or bool(_CELL_NUMBER.search(text))


def _greedy(
    scored: list[Evidence],
    weights: dict[str, float],
    limit: int,
    wanted: Collection[str] = (),
    unprinted: Collection[str] = (),
) -> list[Evidence]:
    """The best unit, then each that adds question terms, or that is close to the best.
    A term an answer does not print (``unprinted``: the "long" of "how long") adds
    nothing: "one long beep" does not answer how long to hold a button.
    In the best unit's own passage (its chunk, or its section on the same or the next
    page), a unit that prints another value of the asked quantity adds too: a passage that
    lists "Phone Test (3-10 seconds)", "Learn Mode (10-20 seconds)" answers "how long for
    each" with all of its items."""
    best = scored[0]
    chosen = [best]
    covered = _stems(f"{best.context} {best.text}")
    values = _values(best.text, wanted)
    total = sum(weights.values()) or 1.0
    for unit in scored[1 : limit * 4]:
        if len(chosen) >= limit or unit.score < 0.5 * best.score:
            break
        stems = _stems(f"{unit.context} {unit.text}")
        gain = (
            sum(w for t, w in weights.items() if t not in unprinted and _found(t, stems - covered))
            / total
        )
        same_passage = unit.chunk_id == best.chunk_id or (
            unit.page_hit.document_id == best.page_hit.document_id
            and unit.page_hit.page in (best.page_hit.page, best.page_hit.page + 1)
            and unit.context == best.context
        )
        printed = _values(unit.text, wanted)
        # A table's other rows are other things (the PGM1 output's rating is not the
        # AUX+ output's), where a passage's other items are parts of one answer.
        listed = same_passage and not unit.row and bool(printed - values)
        if gain > 0.05 or unit.score >= 0.85 * best.score or listed:
            chosen.append(unit)
            covered |= stems
            values |= printed
    return chosen


def _fill(chosen: list[Evidence], scored: list[Evidence], limit: int) -> list[Evidence]:
    """The quotes chosen, then, in the places left, the next best units that score at least
    ``FILL_SCORE`` of the best. A unit nearly as good as the best that adds no word asked
    (so ``_greedy`` passed it over) is most often a parallel item the answer needs too:
    another row of the table, the next step, the other LED. Added once the answer is
    decided on, so they never weigh in whether it is declined, nor take the place of a
    quote chosen for what it adds."""
    out = list(chosen)
    floor = FILL_SCORE * scored[0].score if scored else 0.0
    for unit in scored[1 : limit * 4]:
        if len(out) >= limit or unit.score < floor:
            break
        if unit not in out:
            out.append(unit)
    return out


def _values(text: str, wanted: Collection[str]) -> set[str]:
    """The values a text prints of the wanted quantities, as printed ("3-10 seconds")."""
    if not wanted:
        return set()
    return {m.group(0) for m, key in printed_values(text) if key in wanted}


def _stems(text: str) -> set[str]:
    """A text's stems and the quantity keys of its values (``query.stems_of``)."""
    return set(stems_of(text))


def _found(term: str, stems: Collection[str]) -> bool:
    """A term is found by its stem, or, when it names a quantity, by a value of it; a
    joined term ("factory-default", "on/off") also by all of its words."""
    key = asked_key(term)
    if stem(term) in stems or (key is not None and key in stems):
        return True
    words = joined_words(term)
    return len(words) > 1 and all(stem(w) in stems for w in words)


def answer_weights(
    result: SearchResult, idf: dict[str, float], known: Collection[str] | None = None
) -> dict[str, float]:
    """Term weights for judging an answer: product names route a question but do not
    answer it. The words of a title that say what kind of document it is
    (``MANUAL_WORDS``: "User Manual", "Installation Guide") name no product: a question's
    "user code" or "installation" is what it asks.

    Nor are words no manual of the library prints (with ``known``): a technician's
    question tells its situation ("a customer's unheated garage", "a cleaner") in words
    manuals never use, and their absence from a page says nothing about whether the page
    answers it. That holds while the question keeps enough words the manuals do print;
    when it does not ("the Z-Wave mesh range"), the missing words are what it asks about.
    """
    products = set()
    for hit in answer_pages(result, len(result.pages)):
        products |= set(tokenize(f"{hit.title} {hit.file_name}")) - MANUAL_WORDS
    weights = {
        t: w for t, w in idf.items() if t not in products and not _is_product_code(t, products)
    } or dict(idf)
    if known is not None:
        kept = {t: w for t, w in weights.items() if t in known}
        if len(kept) >= MIN_KNOWN_TERMS:
            return kept
    return weights


def _is_product_code(term: str, products: set[str]) -> bool:
    return any(term.split("-")[0] == p.split("-")[0] for p in products if "-" in p or "-" in term)


def _units(store: Store, hit: PageHit, rank: int) -> list[Evidence]:
    units: list[Evidence] = []
    chunks = store.page_chunks(hit.document_id, hit.page)
    # A row means something only under its column headings (every line of the header
    # band); a table cut into chunks keeps its first chunk's headings.
    tables = {chunk.id: (band, body) for chunk, band, body in table_bands(chunks)}
    for chunk in chunks:
        if chunk.id in tables:
            band, body = tables[chunk.id]
            header = " ".join(band)
            section = ""  # a table without a header: the title row over these rows
            for line in body:
                if not band and is_section_row(line.text):
                    section = filled_cells(line.text)
                    continue
                if header:
                    text = table_row(band, line.text) or f"{header} → {line.text}"
                else:
                    text = f"{section} → {filled_cells(line.text)}" if section else line.text
                units.append(
                    Evidence(
                        text,
                        hit,
                        rank,
                        line.box,
                        context=chunk.heading.split(" > ")[-1],
                        chunk_id=chunk.id,
                        row=True,
                        key=_row_key(line.text),
                    )
                )
            continue
        context = chunk.heading.split(" > ")[-1]
        units.extend(
            replace(u, chunk_id=chunk.id) for u in _sentences(chunk.lines, hit, rank, context)
        )
    # A contents entry names where the answer is, not the answer. (Units printed twice are
    # dropped by the caller, across all the quoted pages.)
    return [u for u in _join_fragments(units) if not is_contents_line(u.text)]


def _row_key(row: str) -> str:
    """A table row's first cell, what the row is about; none for a row of one cell (a
    label or a line of prose laid out as a table says nothing of a value beside it)."""
    cells = row.split(" | ")
    return cells[0].strip() if len(cells) > 1 else ""


def table_row(header: Sequence[str], row: str) -> str | None:
    """A table row read cell by cell under its column headings ("Model: X-DI → RS485: ●;
    Digital Input: ●"), empty cells left out, so a row holds the headings of the columns
    it fills and nothing of those it leaves empty. None when the row's cells do not line
    up with a one-line header (a multi-line header, or a library imported before empty
    cells were kept): then the row is read after the whole header. (A table of settings
    and their values has no header row: ``header_band``.)"""
    if len(header) != 1:
        return None
    heads = [h.strip() for h in header[0].split(" | ")]
    cells = [c.strip() for c in row.split(" | ")]
    if len(heads) < 2 or len(cells) != len(heads):
        return None
    heads = _spanning_heads(heads, cells)
    pairs = [f"{h}: {c}" if h else c for h, c in zip(heads, cells, strict=True) if c]
    if len(pairs) < 2 or not cells[0]:
        return None
    return f"{pairs[0]} → " + "; ".join(pairs[1:])


def _spanning_heads(heads: list[str], cells: list[str]) -> list[str]:
    """Column headings as the row's filled cells read them. A heading or a value that
    spans two columns lands in one of them, not always the same one ("BLN-006 TC1" above
    an empty cell, its "12" one column to the left): a filled cell under no heading takes
    the nearest heading (one column away, then two; right first) whose own column is
    empty in this row and that no other cell has taken. The first cell, the row's label,
    keeps the heading of its own column or none."""
    out = list(heads)
    taken = {i for i, (h, c) in enumerate(zip(heads, cells, strict=True)) if h and c}
    for i, cell in enumerate(cells):
        if not cell or heads[i] or i == 0:
            continue
        for j in (i + 1, i - 1, i + 2, i - 2):
            if 0 <= j < len(heads) and heads[j] and not cells[j] and j not in taken:
                out[i] = heads[j]
                taken.add(j)
                break
    return out


def _join_fragments(units: list[Evidence]) -> list[Evidence]:
    """A sentence cut at a chunk boundary ('Factory Default is set to') continues in the
    next unit when that one does not start a sentence of its own."""
    out: list[Evidence] = []
    for unit in units:
        prev = out[-1] if out else None
        if prev is None or prev.row or unit.row or "→" in prev.text + unit.text:
            out.append(unit)
            continue
        # Chunks share the line at their boundary: the next chunk starts with the line
        # this one ends with, and the sentence it is part of is read once.
        shared = _overlap(prev.text, unit.text) if prev.chunk_id != unit.chunk_id else 0
        if shared or (not _ENDS_SENTENCE.search(prev.text) and _CONTINUES.match(unit.text)):
            box = union_box([prev.box, unit.box])
            text = f"{prev.text[: len(prev.text) - shared].rstrip()} {unit.text}".strip()
            out[-1] = replace(prev, text=text, box=box)
        else:
            out.append(unit)
    return out


def _overlap(before: str, after: str, least: int = 12) -> int:
    """The length of the longest end of ``before`` that ``after`` starts with, at word
    boundaries and at least ``least`` characters long; 0 when there is none."""
    for start in range(max(0, len(before) - len(after)), len(before) - least + 1):
        if (start == 0 or before[start - 1] == " ") and after.startswith(before[start:]):
            tail = len(before) - start
            if len(after) == tail or after[tail] == " ":
                return tail
    return 0


def _sentences(lines: Sequence[TextLine], hit: PageHit, rank: int, heading: str) -> list[Evidence]:
    """Sentences across line breaks, each with the union box of the lines it spans. A
    unit ends with the line where a sentence ends, so a sentence ending inside a line
    takes the rest of that line with it (splitting there instead quoted fewer key facts
    on both development corpora: a value often sits in the sentence after the one that
    names the question's words)."""
    out = []
    pieces: list[tuple[str, Box]] = []

    def emit(text: str, boxes: list[Box]) -> None:
        out.append(Evidence(_clean(text), hit, rank, union_box(boxes)))

    for line in lines:
        if pieces and _BULLET.match(line.text):
            emit(" ".join(t for t, _ in pieces), [b for _, b in pieces])
            pieces = []
        pieces.append((line.text, line.box))
        text = " ".join(t for t, _ in pieces)
        parts = _SENTENCE_END.split(text)
        if len(parts) > 1 or re.search(r"[.!?:]$", line.text) or len(text) > 300:
            emit(text, [b for _, b in pieces])
            pieces = []
    if pieces:
        emit(" ".join(t for t, _ in pieces), [b for _, b in pieces])
    return [
        Evidence(e.text, hit, rank, e.box, context=heading if heading not in e.text else "")
        for e in out
        if len(e.text) > 2 and e.text.strip() != heading
    ]


def _clean(text: str) -> str:
    text = _BULLET.sub("", text)
    return re.sub(r"\s+", " ", text).strip()


def _dedupe(units: list[Evidence]) -> list[Evidence]:
    seen: set[str] = set()
    out = []
    for unit in units:
        key = unit.text.lower()
        if key not in seen:
            seen.add(key)
            out.append(unit)
    return out


def _coverage(text: str, idf: dict[str, float]) -> float:
    total = sum(idf.values()) or 1.0
    stems = _stems(text)
    return sum(w for t, w in idf.items() if _found(t, stems)) / total


def _score(
    units: list[Evidence], result: SearchResult, store: Store, weights: dict[str, float]
) -> list[Evidence]:
    """Each unit's score: the question's term weight it holds (with its heading), the
    meaning of its chunk (the stored chunk vector against the question's, so nothing is
    embedded here), the codes it prints (a table row more, when its first cell is one or
    names what is asked: ``ROW_KEY``), the asked-for quantity, its page's rank."""
    chunk_cos = _chunk_cosines(store, result, {u.chunk_id for u in units})
    wants_value = bool(result.query.quantities) or bool(_WANTS_VALUE.search(result.query.text))
    wanted = set(result.query.quantities)
    named = _named_codes(result.query)
    numbers = _display_numbers(result.query)
    asked = [frozenset(map(stem, part)) for part in result.query.parts]
    scored = []
    for unit in units:
        text = f"{unit.context} {unit.text}"
        coverage = _coverage(text, weights)

        flat = unit.text.lower().replace(" ", "")
        ident = sum(1 for i in result.query.identifiers if i.lower().replace(" ", "") in flat)
        cos = float(np.clip(chunk_cos.get(unit.chunk_id, 0.0), 0, 1))
        score = coverage + 0.6 * cos + 0.15 * ident - 0.05 * unit.rank
        if unit.key and _row_about(unit.key, named, asked, numbers):
            score += ROW_KEY
        if wanted and gives_quantity(unit.text, wanted):
            score += 0.3
        elif wants_value and _VALUE.search(unit.text):
            score += 0.1
        scored.append(replace(unit, coverage=coverage, score=score))
    scored.sort(key=lambda u: -u.score)
    return scored


def _named_codes(query: QueryAnalysis) -> set[str]:
    """The codes and numbers a question writes ("E05", "error 03", "code 10"), lower-cased:
    a table row whose first cell is one of them is the row about it."""
    digits = (t for t in query.terms if any(c.isdigit() for c in t))
    return {w.lower() for w in (*query.identifiers, *digits)}


def _display_numbers(query: QueryAnalysis) -> frozenset[str]:
    """The numbers of at most three digits a question writes alone (``lone_numbers``: "error
    5", not "5 seconds"), without leading zeros: each may be a display code's number, which
    its table prints with the code's letters ("E05")."""
    return frozenset(bare_number(n) for n in lone_numbers(query.text) if len(n) <= 3)


def _row_about(
    key: str,
    named: set[str],
    asked: Sequence[frozenset[str]],
    numbers: Collection[str] = frozenset(),
) -> bool:
    """Whether a table row whose first cell is ``key`` is the row about what a question
    names or asks: a code or number it writes (``named``: "E05", "code 10"), a display
    code whose number it writes alone (``numbers``: "error 5" for the row "E05"), or all
    of the words of one thing it asks for (``asked``: the stems of each part; "what IP
    address and port": the rows "IP" and "Port")."""
    if key.lower() in named:
        return True
    code = display_code(key)
    if code is not None and bare_number(code[1]) in numbers:
        return True
    words = {stem(t) for t in tokenize(key)}
    return bool(words) and any(words <= part for part in asked)


def _chunk_cosines(store: Store, result: SearchResult, ids: set[int]) -> dict[int, float]:
    """Cosine of each chunk's stored vector to the question's (none without vectors, or
    when the question has none: the embedder failed and search runs on full text)."""
    query = result.query_vector
    if query is None or not ids or not query.any():
        return {}
    vectors = VectorIndex(store).get(sorted(ids))
    return {cid: float(vec @ query) for cid, vec in vectors.items() if vec.shape == query.shape}


def _compose(
    chosen: list[Evidence],
    support: float,
    signals: AnswerSignals | None = None,
    probability: float = 1.0,
    hedged: bool = False,
) -> ExtractiveAnswer:
    """Quotes in page order with numbered citations, one citation per page; ``hedged``
    says first that the manuals may not state the answer exactly."""
    chosen = sorted(chosen, key=lambda u: (u.rank, u.box[1]))
    pages: dict[tuple[int, int], int] = {}
    regions: dict[tuple[int, int], list[Box]] = {}
    lines = []
    for unit in chosen:
        key = (unit.page_hit.document_id, unit.page_hit.page)
        number = pages.setdefault(key, len(pages) + 1)
        regions.setdefault(key, []).append(unit.box)
        lead = f"{unit.context.rstrip(': ')}: " if unit.context else ""
        lines.append(f"- {_unmarked(lead + unit.text)} [{number}]")
    hits = {(u.page_hit.document_id, u.page_hit.page): u.page_hit for u in chosen}
    citations = tuple(
        Citation(hits[key].file_name, hits[key].title, key[1], tuple(regions[key]))
        for key in sorted(pages, key=lambda k: pages[k])
    )
    sources = "\n".join(f"[{i}] {c.label()}" for i, c in enumerate(citations, start=1))
    lead = HEDGE_LEAD if hedged else "From the manuals:"
    text = lead + "\n" + "\n".join(lines) + "\n\nSources:\n" + sources
    return ExtractiveAnswer(
        text, citations, False, round(support, 3), tuple(chosen), signals, probability
    )


def _unmarked(quote: str) -> str:
    """A quote with the page's own bracketed numbers ("see [3]" in a list of references)
    in parentheses: in an answer "[3]" is a citation, and would point at another page."""
    return _BRACKETED_NUMBER.sub(r"(\1)", quote)


def _abstain(
    result: SearchResult,
    support: float,
    signals: AnswerSignals | None = None,
    probability: float = 0.0,
) -> ExtractiveAnswer:
    searched = ", ".join(sorted({p.title for p in result.pages[:5]})) or "the library"
    terms = ", ".join(result.query.terms[:8])
    text = "The manuals don't say. I searched " + searched + f" for: {terms}."
    if result.pages:
        top = result.pages[0]
        text += f" The closest passage was {top.title} p.{top.page}, which does not answer it."
    return ExtractiveAnswer(text, (), True, round(support, 3), (), signals, probability)
