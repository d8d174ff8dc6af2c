"""A question that names its equipment is answered from that equipment's manuals alone, so
the agent's search shows their pages first, even where another manual's page that shares
the question's words ranks higher."""

from __future__ import annotations

from dataclasses import replace

from app.agent.library_search import LibrarySearch, named_first
from app.library.embedding import HashingEmbedder
from app.library.library import Library
from app.retrieval.text import PageHit, SearchResult
from tests.helpers.agents import note_library_fixture

NOTES = {
    "Zentra.pdf": (
        "Zentra ZX-40 Panel",
        [
            "The ZX-40 sends event reports to the monitoring station.",
            "Mains failure is reported after a delay.",
            "Set the delay in the menu.",
        ],
    ),
    "Other.pdf": (
        "Orion Alarm Panel",
        [
            "Contact ID code table: AC power failure 1301, AC power failure restore 3301.",
            "Contact ID code for AC power failure: 1301. Restore of AC power: 3301.",
            "Every Contact ID code the panel sends for power failure and restore.",
        ],
    ),
}

library = note_library_fixture("named", NOTES)
QUESTION = "What Contact ID code does the ZX-40 send for an AC power failure and the restore?"


def test_the_named_manuals_pages_come_first_though_another_ranks_higher(
    library: Library,
) -> None:
    search = LibrarySearch(library.store, HashingEmbedder())
    try:
        names = {d.id: d.file_name for d in library.store.list_documents()}
        ranked = search._search(QUESTION, 10, None)  # the ranker's order
        assert [names[p] for p in ranked.query.products] == ["Zentra.pdf"]
        assert ranked.pages[0].file_name == "Other.pdf"  # shares the question's words
        shown = search.search(QUESTION)
        assert shown.pages[0].file_name == "Zentra.pdf"
        assert {p.file_name for p in shown.pages} == {p.file_name for p in ranked.pages}
    finally:
        search.close()


def hit(doc: int, page: int, score: float) -> PageHit:
    return PageHit(doc, f"m{doc}.pdf", "Manual", page, score, score / 2, (), ())


def test_each_group_keeps_its_order_and_the_scores_stay_the_rankers(library: Library) -> None:
    search = LibrarySearch(library.store, HashingEmbedder())
    try:
        query = search.analyse(QUESTION)
    finally:
        search.close()
    named = query.products[0]
    other = next(d.id for d in library.store.list_documents() if d.id != named)
    o1, n1, o2, n2 = hit(other, 1, 1.4), hit(named, 3, 1.3), hit(other, 2, 1.2), hit(named, 1, 1.0)
    result = named_first(SearchResult(query, (o1, n1, o2, n2), o1.confidence))
    assert result.pages == (n1, n2, o1, o2)
    assert [p.score for p in result.pages] == [1.3, 1.0, 1.4, 1.2]
    assert result.confidence == n1.confidence
    # Nothing moves when the named manual leads already, when none of its pages was found,
    # or when the question names no manual.
    leading = SearchResult(query, (n1, o1, n2), n1.confidence)
    assert named_first(leading) is leading
    absent = SearchResult(query, (o1, o2), o1.confidence)
    assert named_first(absent) is absent
    unnamed = SearchResult(replace(query, products=()), (o1, n1), o1.confidence)
    assert named_first(unnamed) is unnamed
