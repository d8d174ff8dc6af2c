"""A quoted value of the asked quantity counts only in a line near the question in meaning:
"how long is the warranty?" is not answered by a button held for 2 seconds."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from app.agent.abstention import SIGNALS, AnswerSignals, answerable, caution, verdict
from app.agent.abstention_weights import QUANTITY_RELATED
from app.agent.extractive import Evidence, answer_signals
from app.retrieval.query import analyse
from app.retrieval.text import PageHit, SearchResult, TextSearch

HIT = PageHit(1, "display.pdf", "Display", 7, 1.0, 1.0, (), ())
QUESTION = "How long is the warranty on the display?"
WARRANTY = "Warranty: 24 months from the date of purchase."
BOOST = "Press and hold the BOOST button for 2 seconds to activate it."
VECTORS = {
    QUESTION: [1.0, 0.0, 0.0],
    WARRANTY: [0.9, 0.436, 0.0],  # cosine 0.9 with the question
    BOOST: [0.05, 0.0, 0.9987],  # cosine 0.05
}


class Embed:
    """Fixed unit vectors for the texts above, counting the texts it is asked for."""

    def __init__(self, dim: int = 3) -> None:
        self.asked: list[str] = []
        self.dim = dim

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.asked.extend(texts)
        return np.asarray([VECTORS[t] for t in texts], dtype=np.float32)


def signals(
    *lines: str, embed: Embed | None = None, qvec: list[float] | None = None
) -> AnswerSignals:
    query = analyse(QUESTION, [])
    assert query.quantities, "the question asks for a time"
    vector = np.asarray(qvec if qvec is not None else VECTORS[QUESTION], dtype=np.float32)
    result = SearchResult(query, (HIT,), 1.0, query_vector=vector)
    chosen = [Evidence(text, HIT, 0, (0.0, 0.0, 10.0, 10.0)) for text in lines]
    weights = dict.fromkeys(query.terms, 1.0)
    return answer_signals(result, chosen, 0.5, weights, embed)


def quantity_input(s: AnswerSignals) -> float:
    return s.as_tuple()[SIGNALS.index("quantity")]


def test_a_value_of_something_else_counts_as_no_value_and_the_question_is_declined() -> None:
    off_topic = signals(BOOST, embed=Embed())
    assert off_topic.quantity == 1.0  # the quote does print a time...
    assert off_topic.related < QUANTITY_RELATED  # ...in a line about something else
    assert quantity_input(off_topic) == -1.0
    assert verdict(answerable(off_topic), caution(off_topic)) == "abstain"
    # The raw measure is kept for the fit (bench/fit_abstention.py), ``related`` last.
    assert off_topic.raw()[-1] == off_topic.related


def test_a_value_in_a_line_about_what_is_asked_counts() -> None:
    embed = Embed()
    on_topic = signals(WARRANTY, BOOST, embed=embed)
    assert on_topic.related >= QUANTITY_RELATED and quantity_input(on_topic) == 1.0
    assert verdict(answerable(on_topic), caution(on_topic)) != "abstain"
    # The best quote is near enough: the line after it is not embedded.
    assert embed.asked == [WARRANTY]
    # In any order the nearest line is what counts.
    assert signals(BOOST, WARRANTY, embed=Embed()).related >= QUANTITY_RELATED


def test_without_an_embedder_or_its_vectors_nothing_is_measured() -> None:
    assert signals(BOOST).related == 1.0
    assert quantity_input(signals(BOOST)) == 1.0
    # The embedder could not run (``DegradingEmbedder``: zero vectors of one dimension).
    down = signals(BOOST, embed=lambda texts: np.zeros((len(texts), 1)), qvec=[0.0])
    assert down.related == 1.0
    # Another embedder's vectors than the question's.
    other = signals(BOOST, embed=lambda texts: np.ones((len(texts), 5)))
    assert other.related == 1.0


def test_a_search_embeds_each_quoted_line_once() -> None:
    embed = Embed()
    search = SimpleNamespace(embedder=SimpleNamespace(embed=embed), _line_vectors={})
    first = TextSearch.embed_lines(search, [WARRANTY, BOOST])  # type: ignore[arg-type]
    again = TextSearch.embed_lines(search, [BOOST, WARRANTY, BOOST])  # type: ignore[arg-type]
    assert embed.asked == [WARRANTY, BOOST]
    assert np.array_equal(again[1], first[0]) and np.array_equal(again[0], first[1])


def test_the_decline_says_the_values_quoted_were_of_other_things() -> None:
    from app.agent.critic import abstention

    text = abstention(["Display"], [QUESTION], "Display p.7", unrelated=["time"])
    assert text.startswith("The manuals don't say.")
    assert "give a time value only for other things" in text
    assert "The closest passage was Display p.7" in text
