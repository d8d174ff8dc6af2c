"""A search's first pages of the answering manual are ordered by their ranker score and their
best line as a quote: the page whose one line answers the question ("code 374") can come
before a page that covers the question's topic all over but answers nothing. Which manual
answers stays the ranker's."""

from __future__ import annotations

from dataclasses import replace

import pytest

import app.agent.library_search as library_search
from app.agent.extractive import best_lines
from app.agent.library_search import LINE_PAGES, LINE_WEIGHT, LibrarySearch, by_lines, line_pages
from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.text import PageHit, SearchResult
from tests.helpers.agents import note_library_fixture

NOTES = {
    "Reporting.pdf": (
        "Panel reporting",
        [
            "Reporting: events go to the monitoring station.",
            "Each event has a code.",
            "The panel goes on reporting until the station replies.",
            "Set the station phone number in the menu.",
        ],
    ),
    "Codes.pdf": (
        "Event codes",
        [
            "Code 373: fire zone trouble.",
            "Code 374: exit error alarm.",
            "Code 375: panic alarm.",
        ],
    ),
}

library = note_library_fixture("lines", NOTES)
QUESTION = "The station is getting event code 374 from the panel. What is it reporting?"


def test_the_code_asked_has_a_better_line_than_a_topical_page(library: Library) -> None:
    search = LibrarySearch(library.store, HashingEmbedder())
    try:
        result = search._search(QUESTION, 10, None)  # before any ordering by lines
        pages = {p.file_name: p for p in result.pages}
        assert {"Reporting.pdf", "Codes.pdf"} <= set(pages)
        lines = best_lines(result, search, library.store, list(pages.values()))
        codes, reporting = (
            lines[(pages[n].document_id, pages[n].page)] for n in ("Codes.pdf", "Reporting.pdf")
        )
        assert pages["Reporting.pdf"].score > pages["Codes.pdf"].score  # as a whole
        assert codes > reporting  # by its best line
    finally:
        search.close()


def hit(page: int, score: float) -> PageHit:
    return PageHit(1, "m.pdf", "Manual", page, score, page / 10, (), ())


def reordered(
    library: Library, monkeypatch: pytest.MonkeyPatch, scores: list[float], lines: list[float]
) -> SearchResult:
    """``_by_lines`` of pages 1, 2... of one manual, given their ranker scores and the
    score of their best lines."""
    pages = tuple(hit(n, s) for n, s in enumerate(scores, start=1))
    best = {(1, n): line for n, line in enumerate(lines, start=1)}
    monkeypatch.setattr(library_search, "best_lines", lambda *_: best)
    search = LibrarySearch(library.store, HashingEmbedder())
    try:
        return search._by_lines(SearchResult(search.analyse(QUESTION), pages, 0.1))
    finally:
        search.close()


def order(result: SearchResult) -> list[int]:
    return [p.page for p in result.pages]


def test_a_page_whose_best_line_is_better_by_enough_comes_first(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    scores, gap = [1.3, 1.2, 0.9, 0.5], 0.1

    def lines(better: float) -> list[float]:
        return [0.4, 0.4 + better, 0.4, 2.0]

    # Its best line better by more than the score gap over the weight: it comes first...
    first = reordered(library, monkeypatch, scores, lines(gap / LINE_WEIGHT + 0.05))
    assert order(first) == [2, 1, 3, 4]
    # ...by less, the ranker's order stands.
    second = reordered(library, monkeypatch, scores, lines(gap / LINE_WEIGHT - 0.05))
    assert order(second) == [1, 2, 3, 4]


def test_only_the_first_pages_are_ordered_and_their_scores_stay_the_rankers(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    scores = [1.3, 1.2, 1.1, 1.0, 0.9]
    # Lines past the first pages are not looked at, however good.
    far = [0.0] * LINE_PAGES + [9.0, 9.0]
    assert order(reordered(library, monkeypatch, scores, far)) == [1, 2, 3, 4, 5]
    result = reordered(library, monkeypatch, scores, [0.0, 0.0, 5.0, 0.0, 0.0])
    assert order(result) == [3, 1, 2, 4, 5]
    # The scores stay the page ranker's; the confidence is the new first page's.
    assert [p.score for p in result.pages] == [1.1, 1.3, 1.2, 1.0, 0.9]
    assert result.confidence == result.pages[0].confidence == 0.3


def test_pages_move_only_within_the_first_pages_manual() -> None:
    a1, a2, a3 = hit(1, 1.3), hit(2, 1.2), hit(3, 1.1)
    b5 = replace(hit(5, 1.25), document_id=2, file_name="other.pdf")
    # Which manual answers stays the ranker's: another manual's page keeps its place, and
    # the first manual's pages swap around it...
    assert by_lines((a1, b5, a2, a3), {(1, 2): 5.0}) == (a2, b5, a1, a3)
    # ...however good its own best line.
    assert by_lines((a1, b5, a2, a3), {(2, 5): 9.0}) == (a1, b5, a2, a3)
    # The first manual's only page among the first: nothing to order.
    assert by_lines((a1, b5, b5), {(2, 5): 9.0}) == (a1, b5, b5)
    assert line_pages((a1, b5, a2, a3)) == [a1, a2]
