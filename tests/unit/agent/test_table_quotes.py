"""A table row is quoted under what labels it: its column headings, the title row above it
in a table without headings, or nothing; never under another row read as a heading."""

from __future__ import annotations

from app.agent.extractive import _units
from app.library.models import StoredChunk, TextLine
from app.retrieval.text import PageHit


class OnePage:
    """The one call ``_units`` makes of a store."""

    def __init__(self, *chunks: StoredChunk) -> None:
        self.chunks = list(chunks)

    def page_chunks(self, doc_id: int, page: int) -> list[StoredChunk]:
        return self.chunks


def table(*rows: str, heading: str = "3.4 Setup", chunk_id: int = 1) -> StoredChunk:
    lines = tuple(
        TextLine(r, (50.0, 100.0 + 20 * i, 500.0, 112.0 + 20 * i)) for i, r in enumerate(rows)
    )
    return StoredChunk(chunk_id, 1, 18, "\n".join(rows), heading, "table", lines)


def quoted(*chunks: StoredChunk) -> list[str]:
    hit = PageHit(1, "m.pdf", "Meter", 18, 1.0, 1.0, (), ())
    return [u.text for u in _units(OnePage(*chunks), hit, 0)]  # type: ignore[arg-type]


def test_rows_of_a_table_without_headings_are_quoted_under_the_title_row_above_them() -> None:
    # A screen beside what to do on it, each group under a title row of its own.
    rows = (
        "3.4.1 Password Validation | ",
        " | Press the button to enter the password; the default is 1000.",
        "3.4.2 Communication Address | ",
        " | Press the button to set the address, 001 to 247.",
    )
    assert quoted(table(*rows)) == [
        "3.4.1 Password Validation → Press the button to enter the password; the default is 1000.",
        "3.4.2 Communication Address → Press the button to set the address, 001 to 247.",
    ]


def test_a_row_of_a_table_whose_first_row_is_no_heading_is_quoted_alone() -> None:
    errors = table(
        "E94 | Water pump feedback failure: the DC pump is damaged or its signal is lost",
        "E96 | Abnormal communication between the compressor driver and the main board",
    )
    assert quoted(errors) == [
        "E94 | Water pump feedback failure: the DC pump is damaged or its signal is lost",
        "E96 | Abnormal communication between the compressor driver and the main board",
    ]
    settings = table("Operation humidity | ≤90%", "Operating temperature | -40℃~+70℃")
    assert quoted(settings) == ["Operation humidity | ≤90%", "Operating temperature | -40℃~+70℃"]


def test_a_row_of_a_table_with_headings_is_quoted_under_them() -> None:
    models = table("Model | RS485 | Digital Input", "X-DI | ● | ●", "X-2T | ● | ")
    assert quoted(models) == [
        "Model: X-DI → RS485: ●; Digital Input: ●",
        "Model: X-2T → RS485: ●",
    ]
