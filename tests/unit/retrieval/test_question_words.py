"""Words of a question that say how it asks or which manual it means are not weighed as
words its answer prints: "how *many*" and "how *long*" in the page ranker's coverage, and
a code that names the product the question names ("the DYN2 drive") among the codes a
page should print."""

from __future__ import annotations

from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.text import TextSearch
from tests.helpers.agents import note_library_fixture

NOTES = {
    # The display's messages name the lockout in passing, in the question's words ("too
    # many wrong codes"); the lockout's own section tells how many and for how long.
    "Display_Messages.pdf": (
        "Keypad display messages",
        [
            "Keypad Locked: too many wrong codes, see the lockout section.",
            "Battery Low: replace the battery within 30 days.",
        ],
    ),
    "Keypad_Lockout.pdf": (
        "Keypad lockout",
        [
            "If a wrong code is entered five times within 90 seconds,",
            "the keypad locks for 3 minutes and ignores every key.",
        ],
    ),
    # Its model code is DX7MS-01E-0315A15; a question calls it the DX7.
    "Orbit_DX7_Drive.pdf": (
        "DX7MS-01E-0315A15 Servo Drive",
        ["The DX7 tuning port runs at 38400 baud, 8 data bits, no parity."],
    ),
}

library = note_library_fixture("question_words", NOTES)


def test_how_many_and_how_long_are_not_words_of_the_answer(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        result = search.search("How many wrong code attempts lock the keypad, and for how long?")
        names = {d.id: d.file_name for d in library.store.list_documents()}
        coverage = {names[c.document_id]: c.as_dict()["coverage"] for c in result.candidates}
        # Both pages hold "wrong code", "keypad" and "lock"; the display's "too many" is no
        # more of the answer than the lockout's missing "long" is a gap in it.
        assert coverage["Display_Messages.pdf"] == coverage["Keypad_Lockout.pdf"] > 0
    finally:
        search.close()


def test_a_code_naming_the_asked_product_is_not_a_code_to_find(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        named = search.analyse("What baud rate does the DX7 drive's tuning port use?")
        assert named.products and "DX7" not in named.identifiers
        # A code naming no product of the library stays one to look for.
        other = search.analyse("What baud rate does the KX9 port use?")
        assert not other.products and "KX9" in other.identifiers
    finally:
        search.close()


def test_a_product_is_named_however_its_code_is_written(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        drive = search.analyse("What baud rate does the DX7 drive's tuning port use?").products
        assert drive
        for written in ("DX-7", "dx 7", "Dx7", "dx-7"):
            named = search.analyse(f"What baud rate does the {written} drive's tuning port use?")
            assert named.products == drive, written
            assert not named.identifiers, f"{written} names the drive, it is no code to find"
        # Across a space only a word of two letters or more starts a code: "25 °C 7 V"
        # writes no "c7".
        assert not search.analyse("Does it run at 25 °C 7 V?").products
    finally:
        search.close()


def test_written_codes() -> None:
    from app.retrieval.query import _written_codes

    assert _written_codes("the uv k5 and bogp-3 on dyn 2") >= {"uvk5", "bogp3", "dyn2"}
    assert "c240" not in _written_codes("at 25 °c 240 v")
    assert "c240" in _written_codes("the c-240 display")


def test_a_name_joined_to_a_model_s_digits_names_the_product() -> None:
    from app.retrieval.query import _named_products

    names = {1: frozenset({"bln"}), 2: frozenset({"c240", "dp c240"})}
    assert _named_products("How much propane is in a BLN012TC1?", names) == [1]
    assert _named_products("How much propane is in a BLN-012TC1?", names) == [1]
    assert _named_products("Is the BLNX a heat pump?", names) == [], "letters go on: another word"
    assert _named_products("Error 10 on the C-240?", names) == [2]


def test_a_model_code_with_letters_after_it_names_the_product() -> None:
    from app.retrieval.query import _named_products

    names = {1: frozenset({"sdm630mct"}), 2: frozenset({"c240"})}
    assert _named_products("Just unboxed an SDM630MCTTCP: what IP address?", names) == [1]
    assert _named_products("Is a C2400 like it?", names) == [], "another number: another model"


def test_the_first_words_of_a_name_written_as_one_code_name_the_product() -> None:
    """A manual titled "DP C240.CAN" is asked about as the "DPC240": without the name, the
    question reads as one about equipment no manual mentions, and is declined."""
    from app.retrieval.query import _leading_codes, _named_products

    names = {1: frozenset({"dp c240 can"}), 2: frozenset({"hybrid security alarm system"})}
    for written in ("DPC240", "dp-c240", "DP C240", "DPC240CAN"):
        assert _named_products(f"Which code shows the cycles on the {written}?", names) == [1]
    assert _named_products("Is a DPC2400 like it?", names) == [], "another number: another model"
    assert _named_products("Which code on the C 240?", names) == []
    assert _leading_codes("dp c240 can") == ["dp c240", "dp c240 can"]
    assert _leading_codes("hybrid security alarm system") == []
