"""A question spelled the British way is searched as an American manual spells it, and the
other way round ("colour" -> "color", "center" -> "centre"); a word the library prints as
written, or whose other spelling no manual prints, stays as it is."""

from __future__ import annotations

import sys
from pathlib import Path

from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.spelling import other_spelling
from app.retrieval.text import TextSearch
from tests.helpers.agents import note_library_fixture

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from cross_corpus import in_spelling

NOTES = {
    "Meter.pdf": (
        "Energy meter display",
        [
            "The backlight color can be set to gray or white in the display menu.",
            "The pulse output flashes 1000 times per kWh.",
        ],
    ),
    "Tuner.pdf": (
        "FM tuner alignment",
        [
            "Turn the dial to the centre of the band before alignment.",
            "Read the detector voltage on an analogue meter.",
        ],
    ),
}

library = note_library_fixture("dialects", NOTES)


def test_a_word_s_other_spelling() -> None:
    assert other_spelling("colour") == "color"
    assert other_spelling("Color") == "colour"
    assert other_spelling("centre") == "center"
    assert other_spelling("analyze") == "analyse"
    assert other_spelling("display") is None, "spelled alike"


def test_a_word_is_searched_as_the_library_spells_it(library: Library) -> None:
    search = TextSearch(library.store, HashingEmbedder())
    try:
        # British into the American manual, American into the British one.
        fixes = search.dialect_spellings("What colour is the backlight, and is the center grey?")
        assert fixes == {"colour": "color", "center": "centre", "grey": "gray"}
        # Printed as written: nothing to do, whichever way it is spelled.
        assert search.dialect_spellings("Is the color set at the centre?") == {}
        # No manual prints "odor": "odour" stays.
        assert search.dialect_spellings("Is an odour normal?") == {}
        result = search.search("Can the backlight colour be grey?")
        assert {"color", "gray"} <= set(result.query.terms)
        assert "colour" not in result.query.terms
        assert result.pages[0].file_name == "Meter.pdf"
    finally:
        search.close()


def test_the_benchmark_asks_in_either_spelling() -> None:
    question = "What color is the AX-200 LED at the center of the analog meter?"
    assert in_spelling(question, "british") == (
        "What colour is the AX-200 LED at the centre of the analogue metre?"
    )
    # A code in capitals is not a word ("AX" is no "axe").
    assert in_spelling("Fit the AX panel", "british") == "Fit the AX panel"
    assert in_spelling("Which colours are analysed?", "american") == ("Which colors are analyzed?")
