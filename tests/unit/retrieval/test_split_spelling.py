"""A word the manuals print as two ("microSD" for the board's "micro SD card") is searched
as they print it; a word English knows, or one whose parts are no words, stays as written."""

from __future__ import annotations

from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.text import TextSearch
from tests.helpers.agents import note_library_fixture

NOTES = {
    "Board.pdf": (
        "Evaluation board guide",
        [
            "The SD card interface supports a micro SD card of up to 32 GB.",
            "Some times the reset key must be held for two seconds.",
            "The pressur ised loop is read by the gauge.",
        ],
    ),
    "Alarm.pdf": (
        "Alarm panel manual",
        [
            "The event memory holds the last 500 events on the main board.",
            "Insert the memory card in the slot before power up.",
        ],
    ),
}

library = note_library_fixture("splits", NOTES)


def test_a_word_a_manual_prints_as_two_is_searched_so(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        assert search.split_spellings("What's the largest microSD card?") == {"microsd": "micro sd"}
        assert search.corrections("What's the largest microSD card?") == {"microsd": "micro sd"}
        result = search.search("What's the largest microSD card this board takes?")
        assert {"micro", "sd"} <= set(result.query.terms)
        assert "microsd" not in result.query.terms
        assert result.pages[0].file_name == "Board.pdf"
    finally:
        search.close()


def test_a_word_english_knows_or_a_split_into_no_words_stays(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        # "some times" is printed, but "sometimes" is a word: it is not "some" and "times".
        assert search.split_spellings("Does it sometimes stop?") == {}
        # "pressur ised" is printed (as a scan's OCR may split a word), but neither part
        # is a word.
        assert "pressurised" not in search.split_spellings("Is the loop pressurised?")
        # Printed as written: nothing to do.
        assert search.split_spellings("Where is the memory slot?") == {}
        # No manual prints the parts side by side.
        assert search.split_spellings("Is there a minijack?") == {}
    finally:
        search.close()
