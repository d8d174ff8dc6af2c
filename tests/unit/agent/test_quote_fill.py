"""Places left in a no-LLM answer go to the quotes nearly as good as the best: another row
of the table, the other LED, the next step. They never decide whether it is answered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.agent import extractive
from app.agent.extractive import FILL_SCORE, Evidence, _fill
from app.retrieval.text import PageHit


def unit(text: str, score: float) -> Evidence:
    hit = PageHit(1, "m.pdf", "Manual", 5, 1.0, 1.0, (), ())
    return Evidence(text, hit, 0, (0.0, 0.0, 1.0, 1.0), score=score)


# The front of a panel: the best line names the LEDs, the others say what each state means.
LEDS = unit("Red LED Flash – Alarm; Yellow LED ON – system fault", 1.0)
HOME = unit("Red LED Flash – Area 1 in Home 1/2/3 Mode.", 0.73)
AWAY = unit("Red LED ON – Area 1 in Away Mode.", 0.71)
SCREW = unit("Top Fixing Screw x 2 (for Version A only)", 0.4)  # under the floor


def test_places_left_go_to_the_next_quotes_nearly_as_good_as_the_best() -> None:
    scored = [LEDS, HOME, AWAY, SCREW]
    assert _fill([LEDS], scored, limit=4) == [LEDS, HOME, AWAY]
    assert SCREW.score < FILL_SCORE * LEDS.score
    # Only into places left: a full answer keeps its quotes, in their order ...
    assert _fill([LEDS, SCREW], scored, limit=2) == [LEDS, SCREW]
    assert _fill([LEDS], scored, limit=2) == [LEDS, HOME]
    # ... and a quote already chosen is not quoted twice.
    assert _fill([LEDS, AWAY], scored, limit=4) == [LEDS, AWAY, HOME]
    assert _fill([], [], limit=4) == []


def test_filling_the_answer_changes_its_quotes_never_its_decision(
    make_agent: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    search = make_agent().resources.text_search
    store = search.store
    questions = (
        "Which KP-20 key sends a medical alarm, and does it sound the siren?",
        "How many wrong code attempts lock the keypad, and for how long?",
        "What is the IP rating of the KP-20 keypad for mounting outdoors?",
    )
    results = [search.search(q) for q in questions]
    filled = [extractive.answer_from_search(r, search, store) for r in results]
    monkeypatch.setattr(extractive, "FILL_SCORE", 1.01)  # nothing fills
    bare = [extractive.answer_from_search(r, search, store) for r in results]
    for with_fill, without in zip(filled, bare, strict=True):
        assert with_fill.abstained == without.abstained
        assert with_fill.signals == without.signals
        assert with_fill.probability == without.probability
        assert with_fill.text.startswith(extractive.HEDGE_LEAD) == without.text.startswith(
            extractive.HEDGE_LEAD
        )
    # The medical key's own row in the keys table ("Hold 2 seconds") now comes too.
    medical, bare_medical = filled[0], bare[0]
    assert "Hold 2 seconds" in medical.text and "Hold 2 seconds" not in bare_medical.text
    assert len(medical.evidence) > len(bare_medical.evidence)
