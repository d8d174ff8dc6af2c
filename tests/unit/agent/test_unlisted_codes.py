"""A code the manual lists others of its form but not this one ("E04" where the error table
goes from E03 to E05) is declined, saying so; a code of no form the manual lists is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.agent.extractive import _display_numbers, _row_about, unlisted_codes
from app.library.library import Library
from app.retrieval.query import analyse
from tests.helpers.agents import no_llm_answer, note_library_fixture

ERRORS = {f"e0{n}" for n in (1, 2, 3, 5)} | {"fault", "pump"}
NOTES = {
    "Kestrel_HP9_Error_Codes.pdf": (
        "Kestrel HP9 Heat Pump Error Codes",
        [
            "E01: water flow switch fault. Check the circulating pump and the strainer.",
            "E02: outdoor temperature sensor fault. Check the sensor plug.",
            "E03: high pressure switch fault. Check the fan and the water flow.",
            "E05: low pressure switch fault. Check for a refrigerant leak.",
        ],
    ),
}


@pytest.mark.parametrize(
    ("identifiers", "unlisted"),
    [
        (("E04",), ("E04",)),  # E01-E03 and E05 are listed, E04 is not
        (("E03",), ()),  # listed
        (("E4",), ("E4",)),  # the table's E04, written without its leading zero
        (("E004",), ("E004",)),  # and with one more
        (("E5",), ()),  # the table's E05: listed
        (("EA04",), ()),  # no listed code has two letters
        (("TR1640",), ()),  # a part number of other equipment: no code of its form
        (("12V",), ()),  # a value with its unit, not a code
        (("RS485", "E04"), ("E04",)),  # RS485 is not printed either, nor of a listed form
        (("E03", "E04"), ()),  # it may be about E03, which the manual lists
    ],
)
def test_a_code_is_unlisted_when_the_manual_lists_others_of_its_form(
    identifiers: tuple[str, ...], unlisted: tuple[str, ...]
) -> None:
    assert unlisted_codes(identifiers, [ERRORS]) == unlisted


def test_a_code_a_page_read_by_ocr_may_have_misread_is_not_declined() -> None:
    # An OCR'd page's "e0a" may be E04 misread: the manual may list it after all.
    assert unlisted_codes(("E04",), [ERRORS], ocr_words={"e0a"}) == ()
    assert unlisted_codes(("E04",), [ERRORS], ocr_words={"pump", "e1"}) == ("E04",)


library = note_library_fixture("codes", NOTES)


def test_the_agent_declines_a_code_its_manual_does_not_list(
    library: Library, tmp_path: Path
) -> None:
    unlisted = no_llm_answer(library, tmp_path, "The heat pump shows E04. What fault is that?")
    assert unlisted.abstained and not unlisted.citations
    assert "No page of the manual it is about lists E04" in unlisted.text
    listed = no_llm_answer(library, tmp_path, "The heat pump shows E03. What fault is that?")
    assert not listed.abstained and "high pressure switch" in listed.text


def test_a_code_written_without_its_leading_zero_is_the_tables(
    library: Library, tmp_path: Path
) -> None:
    """A display shows "E5" where its manual's table prints "E05": the same code, not
    equipment no manual mentions."""
    listed = no_llm_answer(library, tmp_path, "The heat pump shows E5. What fault is that?")
    assert not listed.abstained and "low pressure switch" in listed.text
    unlisted = no_llm_answer(library, tmp_path, "The heat pump shows E4. What fault is that?")
    assert unlisted.abstained and "No page of the manual it is about lists E4" in unlisted.text


def test_only_a_number_written_alone_names_a_display_codes_row() -> None:
    """A number written alone ("error 5") names the table's row "E05": its number, the
    letters left out. A value with its unit names no row."""
    numbers = _display_numbers(analyse("After error 05 it waits 3 minutes, 12V on pin 7", []))
    assert numbers == {"5", "7"}, "values with their units name no code"
    assert _row_about("E05", set(), [], numbers) and _row_about("P7", set(), [], numbers)
    assert not _row_about("E03", set(), [], numbers) and not _row_about("E12", set(), [], numbers)
    assert not _row_about("ZONE5", set(), [], numbers), "a word, not a display code's letters"
