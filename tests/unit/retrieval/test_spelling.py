"""A question's misspelt word is searched as the library's word one slip of typing from
it; a word the library prints, an English word, a short word and a word no slip away
from a printed one stay as they are."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.query import index_term
from app.retrieval.spelling import (
    Vocabulary,
    corrections,
    one_edit_or_swap,
    respelt,
    typing_slip,
)
from app.retrieval.text import TextSearch
from tests.helpers.agents import note_library_fixture

NOTES = {
    "Heat_Pump.pdf": (
        "Heat pump refrigerant",
        [
            "The unit holds 1.05 kg of propane refrigerant (R290).",
            "The display is flashing while the compressor starts.",
        ],
    ),
    "Radio.pdf": (
        "Radio channels",
        ["Press MENU to store the channel.", "The display shows the battery level."],
    ),
}

library = note_library_fixture("spelling", NOTES)


@pytest.mark.parametrize(
    ("typed", "meant", "edit", "slip"),
    [
        ("prpoane", "propane", True, True),  # two letters swapped
        ("flahsing", "flashing", True, True),
        ("realtek", "realteck", True, True),  # a letter added
        ("comand", "command", True, True),  # a letter dropped
        ("commamd", "command", True, True),  # M for N, the key beside it
        ("swapping", "snapping", True, False),  # W and N are far apart
        ("texecom", "telecom", True, False),
        ("propane", "propane", True, False),  # the same word: no slip
        ("verifciation", "verification", True, True),
        ("porpnae", "propane", False, False),  # two swaps
    ],
)
def test_a_slip_of_typing(typed: str, meant: str, edit: bool, slip: bool) -> None:
    assert one_edit_or_swap(typed, meant) is edit
    assert typing_slip(typed, meant) is slip


def test_the_vocabulary_finds_terms_one_edit_away_most_pages_first() -> None:
    vocabulary = Vocabulary([("propan", 4), ("propel", 9), ("proton", 2), ("key", 50)])
    assert vocabulary.near("prpoan") == ["propan"]
    assert vocabulary.near("propen") == ["propel", "propan"]
    assert vocabulary.near("propan") == [], "an indexed term is no misspelling"


def _fix(text: str, printed: Sequence[str], english: Sequence[str] = ()) -> dict[str, str]:
    """``corrections`` over a library printing the words ``printed``."""
    words = {w: index_term(w) for w in printed}
    vocabulary = Vocabulary([(term, 1) for term in words.values()])
    return corrections(
        text,
        index_term,
        lambda word: index_term(word) in vocabulary.pages,
        lambda: vocabulary,
        lambda term: [w for w, t in words.items() if t == term],
        lambda word: word in english,
    )


def test_corrections() -> None:
    printed = ["propane", "flashes", "capacity", "apac", "keypad", "cupboard"]
    assert _fix("How much prpoane is in it?", printed) == {"prpoane": "propane"}
    # The word keeps its own ending on the library's stem ("flash" + "ing").
    assert _fix("Why is it flahsing?", printed) == {"flahsing": "flashing"}
    assert _fix("Is the keypad flashing?", printed) == {}, "printed in another form"
    assert _fix("Will it fit a cuboard?", printed, english=["cuboard"]) == {}
    assert _fix("Is the kepad lit?", printed) == {}, "too short to tell"
    # "capacity" is indexed as "capac", one edit from "apac": an English word stays.
    assert _fix("What is the capacity?", ["apac"], english=["capacity"]) == {}


def test_respelt_keeps_the_rest_of_the_question() -> None:
    fixed = respelt("Prpoane: how much prpoane?", {"prpoane": "propane"})
    assert fixed == "propane: how much propane?"
    assert respelt("unchanged", {}) == "unchanged"


def test_the_search_reads_a_misspelt_word_as_the_library_s(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        assert search.corrections("How much prpoane does the unit hold?") == {"prpoane": "propane"}
        result = search.search("How much prpoane does the unit hold?")
        assert "propane" in result.query.terms
        assert result.pages[0].file_name == "Heat_Pump.pdf"
        # A word the manuals print, or an English word they do not, is left alone.
        assert search.corrections("Why is the display flashing in the cupboard?") == {}
    finally:
        search.close()
