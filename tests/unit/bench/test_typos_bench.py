"""The typing-slip benchmark puts one slip, the same every run, in the question's rarest
long word that the library prints."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
from typos import slip, with_slip


def test_a_slip_swaps_the_two_middle_letters() -> None:
    assert slip("propane") == "prpoane"
    assert slip("flashing") == "flahsing"


def test_the_slip_goes_in_the_rarest_long_word_the_library_prints() -> None:
    pages = {"propane": 2, "refrigerant": 9, "charged": 0}
    question = "How much propane refrigerant is charged?"
    assert with_slip(question, pages) == "How much prpoane refrigerant is charged?"
    assert with_slip("Is it on?", pages) is None, "no word of six letters or more"
