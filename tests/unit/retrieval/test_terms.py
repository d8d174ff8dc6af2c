"""Recognising a question's words where a page writes them differently: OCR misreadings,
words a scan split in two, inflections in BM25, and the names that route to a product."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from app.library.models import DocumentInfo, ManualProfile, StoredChunk, TextLine
from app.retrieval.query import (
    NAME_SHARE,
    analyse,
    fts_query,
    part_stems,
    product_names,
    stem,
    tokenize,
)
from app.retrieval.terms import (
    OcrVocabulary,
    TermFilter,
    expansions,
    line_stems,
    token_stems,
)
from app.retrieval.text import page_coverage, window_coverage
from app.retrieval.units import quantity_keys

SCANS = [
    "The computer port. Conputer Ready on pin 20. The computer link.",
    "Computer failure LED. Compiter fault. The computer is offline.",
    "A relay closes. The computer restarts.",
    "Baud rate 600 for the computer output.",
]


def _pages_with(counts: dict[str, int]) -> Callable[[str], int]:
    return lambda word: counts.get(word, 0)


def test_rare_one_edit_ocr_words_are_misreadings_of_the_question_term() -> None:
    vocab = OcrVocabulary(SCANS)
    pages = _pages_with({"computer": 4, "conputer": 1, "compiter": 1})
    assert vocab.misreadings("computer", pages) == ["compiter", "conputer"]


def test_a_word_some_text_layer_holds_is_a_real_word_not_a_misreading() -> None:
    vocab = OcrVocabulary(["delay delay delay", "relay", "delay", "delay"])
    # "relay" is on a text-layer page too (3 pages in all, 1 of them scanned).
    pages = _pages_with({"delay": 4, "relay": 3})
    assert vocab.misreadings("delay", pages) == []


def test_misreadings_must_be_rarer_than_the_term_and_short_words_are_left_alone() -> None:
    vocab = OcrVocabulary(SCANS)
    assert vocab.misreadings("computer", _pages_with({"computer": 2, "conputer": 1})) == []
    assert vocab.misreadings("pin", _pages_with({"pin": 9})) == []
    # Inflections are the stemmer's to match, not misreadings.
    assert "computers" not in OcrVocabulary(["computers", *SCANS]).misreadings(
        "computer", _pages_with({"computer": 9, "computers": 1})
    )


def test_expansions_alias_misreadings_and_units_to_the_question_term() -> None:
    vocab = OcrVocabulary(SCANS)
    aliases, words = expansions(
        ["computer", "voltage"], vocab, _pages_with({"computer": 4, "conputer": 1})
    )
    assert aliases[stem("conputer")] == stem("computer")  # stems on both sides
    # A printed voltage stands for the word "voltage" (the unit registry says so).
    assert aliases[next(iter(quantity_keys("13.8 V")))] == stem("voltage")
    assert words == ["compiter", "conputer"]
    assert expansions(["computer"], None, None) == ({}, [])


def test_a_word_split_by_a_scan_is_found_joined() -> None:
    assert "output" in line_stems("the COMPUTER out puts are set up")
    assert {"the", "comput", "out", "put"} <= line_stems("the COMPUTER out puts are set up")
    # Only letters are joined: a pin and its number stay apart.
    assert "pin20" not in line_stems("pin 20")


def test_coverage_counts_misread_and_split_words() -> None:
    idf = {"computer": 2.0, "output": 2.0}
    lines = ["Conputer out puts:", "Baud rate 600"]
    assert window_coverage(lines, idf) == 0.5  # the split "out puts" only
    misread = {stem("conputer"): stem("computer")}
    assert window_coverage(lines, idf, aliases=misread) == 1.0
    # A text layer's words are whole: split words are joined on scanned pages only.
    assert window_coverage(lines, idf, aliases=misread, scanned=False) == 0.5


def test_fts_query_matches_terms_as_written_and_their_misreadings() -> None:
    query = fts_query(["triggered", "pin", "13.8", "hsgw-max8"], ["conputer", "pin"])
    assert query == '"triggered" OR "pin" OR "13 8" OR "hsgw max8" OR "conputer"'


def _doc(doc_id: int, product: str) -> DocumentInfo:
    return DocumentInfo(doc_id, "", f"{doc_id}.pdf", product, 10, 0, "", ManualProfile(product))


DOCS = [
    _doc(1, "Hybrid Security Alarm System"),
    _doc(2, "BOGP-3"),
    _doc(3, "Ademco 685 Digital Alarm"),
]


def _printed(pages: dict[str, dict[int, int]]):
    """``pages_with`` over a table of each word's pages per manual (a word not in it is
    printed on five pages of manual 1, 2 or 3 alike, which is not named there)."""
    return lambda word: pages.get(word, {1: 5, 2: 5, 3: 5})


def test_generic_words_of_a_product_name_name_no_product() -> None:
    """What is generic is read off the library: a word other manuals print as much as
    its own manual names none."""
    pages = {
        "hybrid": {1: 20},
        "bogp": {2: 3},
        "ademco": {3: 26},
        "685": {3: 49},
        "alarm": {1: 25, 3: 44},
        "security": {1: 14, 3: 11},
        "system": {1: 26, 2: 29, 3: 27},
        "digital": {3: 12, 1: 6},
    }
    names = product_names(DOCS, pages_with=_printed(pages))
    assert names[1] == {"hybrid security alarm system", "hybrid"}
    assert names[2] == {"bogp-3", "bogp"}
    # A model number or an acronym of three characters names its product too ("the 685",
    # "the EVB") while its manual prints it most.
    assert names[3] == {"ademco 685 digital alarm", "ademco", "685"}
    assert analyse("Which jumper does the 685 need?", DOCS, names).products == (3,)
    pages["685"] = {3: 49, 1: 40}
    names = product_names(DOCS, pages_with=_printed(pages))
    assert "685" not in names[3]
    assert analyse("How do I silence the alarm siren?", DOCS, names).products == ()
    assert analyse("What is the system security code?", DOCS, names).products == ()
    assert analyse("On the Hybrid, what does AUX supply?", DOCS, names).products == (1,)
    assert analyse("Ademco 685 baud rate?", DOCS, names).products == (3,)


def test_without_the_library_only_whole_names_and_model_codes_name_a_product() -> None:
    names = product_names(DOCS)
    assert names[1] == {"hybrid security alarm system"}
    assert names[2] == {"bogp-3"}


def test_a_name_word_other_manuals_print_as_much_is_not_distinctive() -> None:
    names = product_names(DOCS, pages_with=_printed({"hybrid": {1: 5, 2: 4, 3: 3}}))
    assert "hybrid" not in names[1]
    assert "ademco" not in names[3], "printed as much by every manual"
    names = product_names(DOCS, pages_with=_printed({"ademco": {3: 26}}))
    assert "ademco" in names[3]


def test_a_name_word_another_manual_prints_now_and_then_still_names_its_product() -> None:
    """In a van's library of several trades, another maker's manual mentions "a hybrid
    control panel" on a few pages; the VESTA Hybrid's manual prints "Hybrid" on page after
    page, and "the Hybrid" still means it (``NAME_SHARE`` of the pages that print it)."""
    share = {"hybrid": {1: 22, 2: 3, 3: 2}}
    names = product_names(DOCS, pages_with=_printed(share))
    assert "hybrid" in names[1]
    assert analyse("On the Hybrid, what does AUX supply?", DOCS, names).products == (1,)
    # Printed as often elsewhere, the word says nothing of which manual is meant.
    share["hybrid"] = {1: 22, 2: 9, 3: 9}
    assert NAME_SHARE > 22 / 40
    names = product_names(DOCS, pages_with=_printed(share))
    assert "hybrid" not in names[1]
    # A word of the name no page prints (a product read off the file name) still names it.
    names = product_names(DOCS, pages_with=_printed({"bogp": {}}))
    assert "bogp" in names[2]


def test_term_filter_passes_every_line_the_exact_test_would_match() -> None:
    keys = {"computer", "output", "v", "°c", "13.8"}
    quick = TermFilter(keys)
    lines = [
        "Conputer ready",
        "COMPUTER port",
        "out puts",
        "13.8 V DC",
        "-10°C to 45°C",
        "supply 13.8V",
        "valve and avenue",
        "nothing here",
    ]
    for line in lines:
        exact = bool(line_stems(line) & keys)
        assert quick.may_hold(line) or not exact, line
    assert not quick.may_hold("valve and avenue")
    assert not quick.may_hold("nothing here")


def test_term_filter_passes_words_whose_stems_have_two_letters() -> None:
    """'used' and 'using' stem to 'us', 'added' to 'ad': the filter still passes them."""
    for key, line in [("us", "Using the keypad"), ("us", "1 zone used"), ("ad", "Zones added")]:
        assert key in line_stems(line)
        assert TermFilter({key}).may_hold(line), (key, line)
    assert not TermFilter({"us"}).may_hold("a bus fault")  # "us" starts no word here


def _line(text: str, y0: float, y1: float) -> TextLine:
    return TextLine(text, (50.0, y0, 500.0, y1))


def test_a_table_row_is_read_with_the_column_headings_of_its_table() -> None:
    """A two-line header, and a table cut into two chunks whose second repeats only the
    first header line: a row of either chunk meets the column headings."""
    heading = "5.3 Mode and Response Table"
    first = StoredChunk(
        1, 1, 37, "", heading, "table",
        (
            _line("Attribute | System Mode", 100, 150),
            _line("Disarm Mode | Away Mode | Home Mode", 120, 150),
            *(
                _line(f"No Response | Instant Burglar Alarm | Delayed Burglar Alarm {i}", y, y + 20)
                for i, y in enumerate(range(160, 400, 40))
            ),
        ),
    )  # fmt: skip
    second = StoredChunk(
        2, 1, 37, "", heading, "table",
        (
            _line("Attribute | System Mode", 100, 150),
            _line("No Response | Start Entry 1 Delay | Start Entry 1 Delay", 400, 420),
            _line("Home/Delay", 402, 418),
        ),
    )  # fmt: skip
    idf = {"home/delay": 2.0, "away": 2.0}
    lines = [ln.text for c in (first, second) for ln in c.lines]
    # The page's own windows never hold the row and the "Away Mode" heading together...
    assert window_coverage(lines, idf) == 0.5
    # ...the second chunk's row, read under the first chunk's column headings, does.
    assert page_coverage([first, second], lines, idf) == 1.0


def test_words_joined_by_punctuation_are_found_by_their_parts() -> None:
    # A list's "3.Blue Light" and a label's "Power/Volume" hold "blue" and "volume", as
    # the full-text index (which splits at punctuation) reads them; the whole stays too.
    from app.retrieval.query import stems_of

    stems = stems_of("3.Blue Light-----On when charging. Power/Volume Switch, Li-ion")
    assert {"blue", "volum", "li-ion", "ion"} <= stems
    assert {"blue", "volum"} <= line_stems("3.Blue Light Power/Volume")
    assert "3" not in stems_of("3.Blue")  # a list number is no word of its own


def test_a_word_run_into_a_number_is_found_by_its_letters() -> None:
    # A menu's "scan LIST1" is about a scan list; a code keeps its whole form, and letter
    # runs shorter than three ("J24", "RS485") make no word.
    from app.retrieval.query import stems_of

    assert {"list", "list1"} <= stems_of("add the channel into the scan LIST1")
    assert stems_of("J24 RS485") == {"j24", "rs485"}


def test_a_contents_page_does_not_outscore_the_page_it_points_at() -> None:
    from app.retrieval.regions import is_contents_line

    assert is_contents_line("10.4. Fire Verification ........................ 83")
    assert is_contents_line("8.2. HOME AUTOMATION ________________ 48 8.3. SCENE ____ 53")
    assert not is_contents_line("Set the timer to 30 seconds... then press 5.")
    contents = ["Contents", "Fire Verification ........ 83", "Contact ID Codes ........ 87"]
    page = ["10.4 Fire Verification", "A smoke detector set to Fire Verification reports",
            "a Near Alarm (Contact ID 118)."]  # fmt: skip
    idf = {"fire": 2.0, "verification": 3.0, "contact": 2.0, "id": 2.0}

    def coverage(lines: list[str]) -> float:
        chunk = StoredChunk(1, 1, 1, "\n".join(lines), "", "paragraph", ())
        return page_coverage([chunk], lines, idf)

    assert coverage(contents) == 0.0
    assert coverage(page) == 1.0


def test_a_line_has_the_stems_of_the_slow_reading_ascii_or_not() -> None:
    """The fast paths (one lower() for an ASCII line, no unit parse for a line that prints
    no quantity) give what stemming every token and parsing every line gives."""
    pattern = re.compile(r"[A-Za-z0-9]+(?:[.\-/+][A-Za-z0-9]+)*\+?|°[CF]|[✱★▲▼◄►#Ω]")
    lines = [
        "Set SW1-ON, then Press ENTER (13.8 V, 500mA)",
        "Torque 2.5 N·m at 20 °C; out puts ★ OK",
        "Temperature 40°F \u212aelvin İstanbul 10 Ω",
        "Fuse Rated Current(A) AUX+ 12V/24V #3",
        "no numbers here, just wiring the batteries",
    ]
    for line in lines:
        slow_tokens = [t.lower() for t in pattern.findall(line)]
        assert tokenize(line) == slow_tokens
        parts = part_stems(slow_tokens)
        slow = frozenset(stem(t) for t in slow_tokens) | parts | quantity_keys(line)
        assert token_stems(line) == slow
        joined = [a + b for a, b in pairwise(slow_tokens) if a.isalpha() and b.isalpha()]
        assert line_stems(line) == slow | frozenset(stem(j) for j in joined)


def test_a_questions_word_weighs_once_whatever_forms_it_takes() -> None:
    from app.retrieval.query import content_terms

    terms = content_terms("How long must I press it to count, and what counts as a quick press?")
    assert terms == ["long", "must", "press", "count", "quick"]


def test_a_word_is_looked_up_in_the_index_as_the_index_holds_it() -> None:
    import apsw

    from app.retrieval.query import index_term

    db = apsw.Connection(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61 remove_diacritics 2')"
    )
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row')")
    words = "key keys bus use one sms way led set ac id is wiring battery 485 rs485 fault".split()
    for word in words:
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t VALUES (?)", (word,))
        (held,) = db.execute("SELECT term FROM v").fetchall()[0]
        assert index_term(word) == held, word
    # Lines are still matched by ``stem``, which keeps a three-letter word whole.
    assert stem("key") == "key" and index_term("key") == "kei"
