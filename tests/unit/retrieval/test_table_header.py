"""A table's header row is labels; a first row of sentences is the table's first row."""

from __future__ import annotations

from app.library.models import StoredChunk, TextLine
from app.retrieval.text import header_band, is_section_row, page_coverage, table_bands


def rows(*texts: str) -> tuple[TextLine, ...]:
    return tuple(
        TextLine(t, (50.0, 100.0 + 20 * i, 500.0, 112.0 + 20 * i)) for i, t in enumerate(texts)
    )


HEADED = rows(
    "Item Name | No. | Function Description | Value Range",
    "SQL | 01 | Squelch level | 0-9",
    "STEP | 02 | Frequency step | 2.5K-100K",
)
# A settings screen beside what to do on it, laid out as a table: no heading row.
SCREENS = rows(
    "Long press button to enter the CO2 setup. | CO2",
    "Press button to choose the CO2 rate, then long press it to confirm. | 0.5703",
    "Long press button to enter the setup of the pulse output and its rate. | PULS",
    "Press button to choose the pulse width, 60, 100 or 200 ms. | 100",
    "Long press button to enter the setup of the demand period. | DIT",
    "Press button to choose the period, 0, 5, 8, 10, 15, 20, 30 or 60 minutes. | 60",
    "Long press button to set the IP address. | IP",
)


def test_a_header_row_of_labels_is_the_tables_column_headings() -> None:
    band, body = header_band(HEADED)
    assert band == ["Item Name | No. | Function Description | Value Range"]
    assert [line.text for line in body] == [line.text for line in HEADED[1:]]


def test_a_first_row_of_sentences_is_no_header() -> None:
    band, body = header_band(SCREENS)
    assert band == []
    assert list(body) == list(SCREENS)


def test_a_first_row_of_a_setting_and_its_value_is_no_header() -> None:
    settings = rows(
        "Supply voltage | 230 V", "Frequency | 50 Hz", "Operating temperature | -40~+70"
    )
    assert header_band(settings) == ([], list(settings))
    model = rows("Standby current | 7 Ah battery | 18 Ah battery", "500 mA | 11.9 h | 30.6 h")
    assert header_band(model)[0] == [model[0].text], "values in a header of three columns"


def test_a_headerless_tables_first_row_is_not_context_for_every_row() -> None:
    # Read as a header, the CO2 row would join the IP row four rows below it, and the
    # page would cover a question about both as if one passage held them.
    table = StoredChunk(1, 1, 7, "\n".join(r.text for r in SCREENS), "Setup", "table", SCREENS)
    idf = {"co2": 2.0, "ip": 2.0}
    lines = [r.text for r in SCREENS]
    assert page_coverage([table], lines, idf) == 0.5
    headed = StoredChunk(2, 1, 8, "\n".join(r.text for r in HEADED), "Menu", "table", HEADED)
    menu = {"squelch": 2.0, "function": 2.0, "step": 2.0}
    assert page_coverage([headed], [r.text for r in HEADED], menu) == 1.0


def chunk(id_: int, heading: str, lines: tuple[TextLine, ...]) -> StoredChunk:
    return StoredChunk(id_, 1, 7, "\n".join(r.text for r in lines), heading, "table", lines)


def test_a_table_cut_into_chunks_keeps_its_headings_and_reads_its_first_row_once() -> None:
    # The chunker repeats a table's first line at the top of each of its chunks.
    headed = [chunk(1, "Menu", HEADED[:2]), chunk(2, "Menu", (HEADED[0], HEADED[2]))]
    bands = [(band, [ln.text for ln in body]) for _, band, body in table_bands(headed)]
    assert bands == [([HEADED[0].text], [HEADED[1].text]), ([HEADED[0].text], [HEADED[2].text])]
    screens = [chunk(3, "Setup", SCREENS[:4]), chunk(4, "Setup", (SCREENS[0], *SCREENS[4:]))]
    read = [ln.text for _, band, body in table_bands(screens) for ln in body]
    assert read == [ln.text for ln in SCREENS]  # the CO2 row once, where it is printed


def test_another_table_under_the_same_heading_has_its_own_headings() -> None:
    other = rows("Model | RS485 | M-Bus", "X-DI | ● | ")
    tables = [chunk(1, "Menu", HEADED), chunk(2, "Menu", other)]
    assert [band for _, band, _ in table_bands(tables)] == [[HEADED[0].text], [other[0].text]]


def test_a_title_row_is_no_header() -> None:
    titled = rows("3.4.1 Password Validation |  | ", " | Enter the password | 1000")
    assert header_band(titled) == ([], list(titled))
    assert is_section_row("3.4.2 Communication Address |  | ")
    assert not is_section_row(" | Communication address setup | 001~247")
    assert not is_section_row("Operating temperature | -40~+70")
    assert not is_section_row("A line with no cells")


def test_a_first_row_keyed_like_the_rows_under_it_is_no_header() -> None:
    # The page printed the headings ("Code | Code definition | unit") outside the table's
    # frame: read as headings, "b04 | Total voltage | V" would label every row.
    data = rows(
        "b04 | Total voltage | V",
        "b06 | Average current | A",
        "b07 | Remaining capacity | Ah",
        "b11 | Cycle | times",
    )
    assert header_band(data) == ([], list(data))
    continued = rows(
        "E24 | Board Change Out Temperature Fault | Damaged motherboard or sensor",
        "E25 | Water Outlet Temperature Too High | Insufficient water flow",
        "E26 | Low Pressure Fault | Refrigerant leak",
    )
    assert header_band(continued)[0] == []
    # Only a numbered key marks a row of data: a heading of words stays a heading, even
    # when a row under it starts with the same word.
    assert header_band(HEADED)[0] == [HEADED[0].text]
    pins = rows("Pin | Name | Function", "Pin 1 | VCC | Supply", "Pin 2 | GND | Ground")
    assert header_band(pins)[0] == [pins[0].text]
