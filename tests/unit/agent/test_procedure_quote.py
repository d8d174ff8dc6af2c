"""A question that asks how to do something gets the quote that says how: the step that
acts on what it names, not only a passage that mentions the topic."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.agent import extractive, library_search
from app.agent.extractive import PART_SCORE, Evidence, _cover_procedures
from app.retrieval.query import analyse, asked_parts, asked_procedures
from app.retrieval.text import PageHit


@pytest.mark.parametrize(
    ("question", "procedures"),
    [
        (
            "The site wants 15-minute maximum demand figures from this meter. How do I set "
            "the demand period, and where on the display do I then read the peak current?",
            [["set", "demand", "period"]],
        ),
        ("How do I lock the keypad?", [["lock", "keypad"]]),
        (
            "How do I get into the stored fault history, and how many past faults does it keep?",
            [["get", "stored", "fault", "history"]],
        ),
        ("How can I clear the tamper fault?", [["clear", "tamper", "fault"]]),
        # "How long", "how many": a measure is asked, not a procedure.
        ("How long do I hold the reset button?", []),
        ("How many zones can the panel handle?", []),
        ("What does the orange LED mean?", []),
    ],
)
def test_the_procedure_asked_is_its_verb_and_object(
    question: str, procedures: list[list[str]]
) -> None:
    assert asked_procedures(question) == procedures


def test_a_procedure_is_not_a_thing_asked_for() -> None:
    # "How do I check the compressor speed" asks how to look, not for a speed to be given:
    # the quantity asked (which decides a decline) and the parts stay as they were.
    question = "How do I check the compressor speed from the wall controller while it's running?"
    query = analyse(question, [])
    assert query.procedures == (("check", "compressor", "speed"),)
    assert query.parts == () and asked_parts(question) == []
    assert query.quantities == ()


def unit(text: str, score: float) -> Evidence:
    hit = PageHit(1, "m.pdf", "Meter", 5, 1.0, 1.0, (), ())
    return Evidence(text, hit, 0, (0.0, 0.0, 1.0, 1.0), score=score)


# A meter manual: the introduction mentions demand periods; a setup page says how to set one.
INTRO = unit("Maximum demand current can be measured over preset periods of up to 60 minutes.", 1.0)
SETUP = unit("Demand Interval Time setup: press the button to set the demand period value.", 0.65)
PULSE = unit("Pulse Duration Setup: press the button to set the pulse width.", 0.6)
WEIGHTS = {"set": 0.5, "demand": 2.0, "period": 1.5, "pulse": 2.0}


def test_the_step_that_does_it_is_quoted_beside_the_topic() -> None:
    scored = [INTRO, SETUP, PULSE]
    procedure = [("set", "demand", "period")]
    assert _cover_procedures([INTRO], scored, WEIGHTS, procedure, limit=4) == [INTRO, SETUP]
    # When every place is taken, it takes the weakest.
    assert _cover_procedures([INTRO, PULSE], scored, WEIGHTS, procedure, limit=2) == [
        INTRO,
        SETUP,
    ]
    # A chosen quote that already holds as much of it is enough.
    assert _cover_procedures([SETUP], scored, WEIGHTS, procedure, limit=4) == [SETUP]
    # Nothing asked, nothing added; a candidate far below the best is not weighed.
    assert _cover_procedures([INTRO], scored, WEIGHTS, [], limit=4) == [INTRO]
    weak = unit(SETUP.text, PART_SCORE * INTRO.score - 0.01)
    assert _cover_procedures([INTRO], [INTRO, weak], WEIGHTS, procedure, limit=4) == [INTRO]


def test_two_procedures_asked_keep_a_quote_each() -> None:
    # "How do I set the demand period, and how do I set the pulse width?": the second
    # procedure's step does not take the first one's place.
    scored = [INTRO, SETUP, PULSE]
    both = [("set", "demand", "period"), ("set", "pulse", "width")]
    weights = {**WEIGHTS, "width": 1.5}
    assert _cover_procedures([INTRO], scored, weights, both, limit=2) == [INTRO, SETUP]
    kept: list[Evidence] = []
    assert _cover_procedures([INTRO], scored, weights, both, 2, 3, kept) == [INTRO, SETUP, PULSE]
    assert kept == [SETUP, PULSE]


def test_the_procedure_quote_never_changes_the_decision(
    make_agent: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    search = make_agent().resources.text_search
    store = search.store
    questions = (
        "What is the factory default installer code, and how do I enter installer programming?",
        "How do I arm the system in stay mode?",
        "How do I bypass a zone from the keypad?",
    )
    results = [search.search(q) for q in questions]
    assert all(r.query.procedures for r in results)
    covered = [extractive.answer_from_search(r, search, store) for r in results]
    monkeypatch.setattr(extractive, "_cover_procedures", lambda chosen, *_: chosen)
    bare = [extractive.answer_from_search(r, search, store) for r in results]
    for with_step, without in zip(covered, bare, strict=True):
        assert with_step.abstained == without.abstained
        assert with_step.signals == without.signals
        assert with_step.probability == without.probability
    # The installer-programming answer quotes the row on getting in when it fails. Its
    # page comes second once the first pages are ordered by their best lines too
    # (``LibrarySearch._by_lines``), and the row is quoted either way...
    assert "Cannot enter installer programming" in covered[0].text
    assert "Cannot enter installer programming" in bare[0].text
    # ...in the page ranker's own order it comes third, and only the procedure's quote
    # reaches it.
    monkeypatch.setattr(library_search, "LINE_WEIGHT", 0.0)
    ranked = search.search(questions[0])
    assert (
        "Cannot enter installer programming"
        not in extractive.answer_from_search(ranked, search, store).text
    )
    monkeypatch.undo()  # the procedure's quote too
    with_step = extractive.answer_from_search(ranked, search, store)
    assert "Cannot enter installer programming" in with_step.text
