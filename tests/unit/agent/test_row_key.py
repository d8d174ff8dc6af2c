"""A table row whose first cell is a code the question names, or what it asks for, is the
row about it, and is quoted: "error 10" is answered by the error table's row 10 beside a
note that shares more of the question's words; "what IP address and port" by the rows "IP"
and "Port" before the setup step that says "set the IP address"."""

from __future__ import annotations

from app.agent.extractive import (
    FILL_SCORE,
    ROW_KEY,
    Evidence,
    _fill,
    _named_codes,
    _row_about,
    _score,
    _units,
)
from app.library.models import StoredChunk, TextLine
from app.retrieval.query import analyse
from app.retrieval.text import PageHit, SearchResult

HIT = PageHit(1, "display.pdf", "Display", 15, 1.0, 1.0, (), ())


class OnePage:
    """The calls ``_units`` and ``_score`` make of a store (no vectors: none are read
    when the search has no question vector)."""

    def __init__(self, *chunks: StoredChunk) -> None:
        self.chunks = list(chunks)

    def page_chunks(self, doc_id: int, page: int) -> list[StoredChunk]:
        return self.chunks


def chunk(chunk_id: int, kind: str, *lines: str) -> StoredChunk:
    boxes = tuple(
        TextLine(t, (50.0, 100.0 + 20 * i, 500.0, 112.0 + 20 * i)) for i, t in enumerate(lines)
    )
    return StoredChunk(chunk_id, 1, 15, "\n".join(lines), "Error codes", kind, boxes)


NOTE = chunk(
    1,
    "paragraph",
    "Note: error code 10 may show after a long climb; the motor cuts the assist out.",
)
TABLE = chunk(
    2,
    "table",
    "Error | Explanation | Troubleshooting",
    "03 | Brakes enabled | Check whether a brake cable is stuck",
    "10 | Motor temperature at its protection limit | Stop and let the motor cool",
    "21 | Wheel speed sensor fault | Have the dealer check the sensor",
)


def scored(question: str) -> list[Evidence]:
    store = OnePage(NOTE, TABLE)
    units = _units(store, HIT, 0)  # type: ignore[arg-type]
    query = analyse(question, [])
    weights = dict.fromkeys(query.terms, 1.0)
    result = SearchResult(query, (HIT,), 1.0)
    return _score(units, result, store, weights)  # type: ignore[arg-type]


def quoted(question: str) -> list[str]:
    units = scored(question)
    return [u.text.split(" → ")[0] for u in _fill(units[:1], units, limit=4)]


def test_the_row_about_the_code_asked_is_quoted_beside_a_note_sharing_more_words() -> None:
    question = "After a long climb the display flashed code {} and the assist cut out. Why?"
    assert quoted(question.format(10)) == [NOTE.text, "Error: 10"]
    assert quoted(question.format(21)) == [NOTE.text, "Error: 21"]
    # Without the row's gain, its two words of the question leave it far behind the note.
    units = scored(question.format(10))
    row = next(u for u in units if u.key == "10")
    assert row.score - ROW_KEY < FILL_SCORE * units[0].score <= row.score
    assert all(u.score < row.score for u in units if u.row and u.key != "10")


def test_the_codes_a_question_names_are_its_identifiers_and_its_numbers() -> None:
    named = _named_codes(analyse("What does E05 mean, and what is error 03?", []))
    assert {"e05", "03"} <= named
    assert _named_codes(analyse("How do I reset the display?", [])) == set()


SETUP = chunk(3, "paragraph", "TCP IP address setup: long press the button to set the IP address.")
DEFAULTS = chunk(
    4,
    "table",
    "Type | Ethernet",
    "IP | 192.168.1.200 (default)",
    "Subnet mask | 255.255.255.0 (default)",
    "Gateway | 192.168.1.1 (default)",
    "Port | 502",
)


def test_the_rows_named_by_what_is_asked_are_quoted_first() -> None:
    store = OnePage(SETUP, DEFAULTS)
    units = _units(store, HIT, 0)  # type: ignore[arg-type]
    query = analyse("Out of the box, what IP address and port will the meter be on?", [])
    assert query.parts  # what it asks for: the IP address, the port
    result = SearchResult(query, (HIT,), 1.0)
    ranked = _score(units, result, store, dict.fromkeys(query.terms, 1.0))  # type: ignore[arg-type]
    assert [u.text for u in ranked[:2]] == [
        "Type: IP → Ethernet: 192.168.1.200 (default)",
        "Type: Port → Ethernet: 502",
    ]
    # A row whose first cell holds a word not asked ("Subnet mask") gains nothing.
    assert not _row_about("Subnet mask", set(), [frozenset({"ip", "address"})])
    assert _row_about("IP", set(), [frozenset({"ip", "address"})])
    # A row of one cell is a label, not the row about it: it has no key.
    label = chunk(5, "table", "Type | Ethernet", "IP address", "IP | 192.168.1.200")
    assert [u.key for u in _units(OnePage(label), HIT, 0)] == ["", "IP"]  # type: ignore[arg-type]
