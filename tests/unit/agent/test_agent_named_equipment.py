"""A question that names its equipment is answered from that equipment's manual: when
another manual's page is the closest, the answer says the named manual does not say."""

from __future__ import annotations

from pathlib import Path

from app.library.library import Library
from tests.helpers.agents import no_llm_answer, note_library_fixture

NOTES = {
    "Lumen_AX200_Service_Note.pdf": (
        "Lumen AX-200 Service Note",
        [
            "Radio: the AX-200 talks to its wireless sensors at an RF frequency of 868 MHz.",
            "Battery: the AX-200 panel uses a 12 V 7 Ah sealed lead-acid battery.",
        ],
    ),
    "Vesta_BX9_Service_Note.pdf": (
        "Vesta BX-9 Service Note",
        [
            "Keypad: the BX-9 keypad mounts on a single gang box with two screws.",
            "Battery: the BX-9 keypad runs on two AA cells for about a year.",
        ],
    ),
}


library = note_library_fixture("named", NOTES)


def test_another_manuals_passage_does_not_answer_for_the_named_equipment(
    library: Library, tmp_path: Path
) -> None:
    # The AX-200 note's radio line matches the question best, but the question is about
    # the BX-9: nothing of the AX-200 note is quoted, and the BX-9 note prints no frequency.
    answer = no_llm_answer(library, tmp_path, "What RF frequency does the BX-9 use?")
    assert answer.abstained and not answer.citations and "868" not in answer.text
    assert "No page of the manual it is about gives a frequency value." in answer.text
    sensors = no_llm_answer(library, tmp_path, "How does the BX-9 talk to its wireless sensors?")
    assert "868" not in sensors.text
    assert {c.document for c in sensors.citations} <= {"Vesta_BX9_Service_Note.pdf"}
    # Asked of the equipment whose manual prints it, the same question is answered.
    answered = no_llm_answer(library, tmp_path, "What RF frequency does the AX-200 use?")
    assert not answered.abstained and "868 MHz" in answered.text
