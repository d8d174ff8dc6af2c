"""A technician's situation words, which no manual prints, do not make Lantern abstain."""

from __future__ import annotations

from collections.abc import Callable

from app.agent.events import Answer
from app.agent.extractive import answer_weights
from app.agent.loop import Tree

PLAIN = "What voltage does the AUX output supply?"
TOLD = (
    "My customer's grandmother keeps the panel in her drafty farmhouse pantry near the "
    "sourdough crock; what voltage does the AUX output supply?"
)


def _answer(agent: Tree, question: str) -> Answer:
    answers = [e for e in agent.ask(question) if isinstance(e, Answer)]
    assert answers
    return answers[-1]


def test_words_no_manual_prints_are_not_looked_for(make_agent: Callable[..., Tree]) -> None:
    agent = make_agent()
    search = agent.resources.text_search
    result = search.search(TOLD)
    terms = result.query.terms
    known = search.known(terms)
    assert {"voltage", "aux", "output"} <= known
    assert not {"grandmother", "farmhouse", "sourdough", "pantry"} & known
    # Three-letter words are looked up as the index stems them ("use" as "us").
    assert {"use", "one"} <= search.known(("use", "one"))
    weights = answer_weights(result, search._idf(terms), known)
    assert "voltage" in weights and "sourdough" not in weights
    # A question left with too few words the manuals print keeps them all: the missing
    # ones are what it asks about.
    few = {"z-wave": 5.0, "mesh": 5.0, "range": 2.0, "maximum": 2.0}
    assert answer_weights(result, few, frozenset({"range", "maximum"})) == few


def test_a_question_told_as_a_story_is_answered_not_declined(
    make_agent: Callable[..., Tree],
) -> None:
    agent = make_agent()
    plain, told = _answer(agent, PLAIN), _answer(agent, TOLD)
    assert not plain.abstained
    assert not told.abstained, told.text
    assert "13.8" in told.text


def test_a_question_told_as_a_story_cites_what_the_plain_one_cites(
    make_agent: Callable[..., Tree],
) -> None:
    agent = make_agent()
    plain, told = _answer(agent, PLAIN), _answer(agent, TOLD)
    assert {(c.document, c.page) for c in told.citations} & {
        (c.document, c.page) for c in plain.citations
    }
