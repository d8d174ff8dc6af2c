"""Reading PDF pages: structure, tables kept whole, boxes in PDF points, furniture dropped."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from app.library.extract import RawPage, build_page, document_title, read_page
from app.library.layout import body_font_size, furniture_keys
from app.library.models import Box, PageContent
from tests.helpers import pdfs


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pymupdf.Document]:
    path = pdfs.text_manual_pdf(tmp_path_factory.mktemp("extract") / "manual.pdf", pages=4)
    with pymupdf.open(path) as doc:
        yield doc


@pytest.fixture(scope="module")
def raws(manual: pymupdf.Document) -> list[RawPage]:
    return [read_page(page) for page in manual]


def build_all(raws: list[RawPage]) -> list[PageContent]:
    body = body_font_size([line for raw in raws for line in raw.lines])
    furniture = furniture_keys([(raw.height, raw.lines) for raw in raws])
    return [build_page(raw, body, furniture) for raw in raws]


def inside(inner: Box, outer: Box, slack: float = 1.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


def blocks_of(page: PageContent, kind: str) -> list[str]:
    return [b.text for b in page.blocks if b.kind == kind]


def test_headings_paragraphs_tables_and_list_items_are_told_apart(raws: list[RawPage]) -> None:
    first = build_all(raws)[0]

    assert blocks_of(first, "heading")[:2] == [pdfs.SECTION, pdfs.SUBSECTION]
    (paragraph, *_) = blocks_of(first, "paragraph")
    assert "Jumper J24 selects the PGM output voltage" in paragraph.replace("\n", " ")
    assert [t.lstrip("• ") for t in blocks_of(first, "list_item")] == list(pdfs.BULLETS)


def test_a_ruled_table_comes_out_whole_with_its_rows_and_cells(raws: list[RawPage]) -> None:
    first = build_all(raws)[0]

    (table,) = [b for b in first.blocks if b.kind == "table"]
    assert table.rows == pdfs.TABLE_ROWS
    assert table.text.split("\n")[1] == "AUX+ | Auxiliary power output | 12 V DC, 500 mA"
    # Cell text is not repeated as loose paragraphs beside the table.
    loose = "\n".join(b.text for b in first.blocks if b.kind != "table")
    assert "Auxiliary power output" not in loose


def test_the_table_sits_in_reading_order_between_the_text_above_and_below(
    raws: list[RawPage],
) -> None:
    kinds = [b.kind for b in build_all(raws)[0].blocks]

    assert kinds.index("paragraph") < kinds.index("table") < kinds.index("list_item")


def test_words_lines_and_blocks_have_boxes_in_pdf_points(
    manual: pymupdf.Document, raws: list[RawPage]
) -> None:
    first = build_all(raws)[0]
    page_box = (0.0, 0.0, first.width, first.height)
    assert (first.width, first.height) == pytest.approx((pdfs.A4.width, pdfs.A4.height))

    (j24,) = [w for w in first.words if w.text == "J24"]
    (expected,) = manual[0].search_for("J24")
    assert j24.box == pytest.approx(tuple(expected), abs=1.5)
    for block in first.blocks:
        assert inside(block.box, page_box)
        for line in block.lines:
            assert inside(line.box, block.box)
    (table,) = [b for b in first.blocks if b.kind == "table"]
    assert table.box[0] == pytest.approx(pdfs.LEFT, abs=1.5)
    assert table.box[3] - table.box[1] == pytest.approx(20.0 * len(pdfs.TABLE_ROWS), abs=2)


def test_heading_lines_know_their_size_and_weight(raws: list[RawPage]) -> None:
    lines = {line.text: line for line in raws[0].lines}

    assert lines[pdfs.SECTION].size == pytest.approx(18.0, abs=0.1)
    assert lines[pdfs.SECTION].bold
    assert not lines[pdfs.BULLETS[0]].bold


def test_a_running_footer_repeated_on_every_page_is_dropped(raws: list[RawPage]) -> None:
    pages = build_all(raws)

    assert all(pdfs.FOOTER in raw.text for raw in raws)
    assert not any(pdfs.FOOTER in page.text for page in pages)
    assert all(f"pageword{page.number}" in page.text for page in pages)


def test_a_key_set_in_a_symbol_font_keeps_its_glyph(raws: list[RawPage]) -> None:
    first = build_all(raws)[0]

    assert pdfs.KEYPAD_LINE in first.text
    assert any(w.text == "✱" for w in first.words)


def test_a_scanned_page_has_no_text_and_is_covered_by_its_image(tmp_path: Path) -> None:
    with pymupdf.open(pdfs.scanned_pdf(tmp_path / "scan.pdf")) as doc:
        raw = read_page(doc[0])

    assert raw.lines == []
    assert raw.words == []
    assert raw.image_coverage > 0.95


def test_a_page_without_drawings_skips_the_table_search(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Plain text only, no rules and no table.")

    raw = read_page(doc[0])

    assert raw.tables == []
    assert raw.text == "Plain text only, no rules and no table."


def test_the_title_comes_from_real_metadata(manual: pymupdf.Document, raws: list[RawPage]) -> None:
    assert document_title(manual, raws[0], "fallback") == pdfs.TITLE


def test_a_placeholder_metadata_title_gives_way_to_the_largest_first_page_text(
    raws: list[RawPage],
) -> None:
    doc = pymupdf.open()
    doc.set_metadata({"title": "Microsoft Word - ax200_v3.docx"})

    assert document_title(doc, raws[0], "fallback") == pdfs.SECTION
    assert document_title(doc, None, "AX200 guide") == "AX200 guide"


def test_a_table_lines_empty_cells_are_kept_so_cells_stay_under_their_columns() -> None:
    from app.library.extract import RawTable, _table_block

    rows = [("Model", "RS485", "Digital Input"), ("X-DI", "●", "●"), ("X-MB", "", "●")]
    boxes = [(0.0, y, 100.0, y + 10.0) for y in (0.0, 10.0, 20.0)]
    block = _table_block(RawTable((0.0, 0.0, 100.0, 30.0), rows, boxes))  # type: ignore[arg-type]
    assert [line.text for line in block.lines][2] == "X-MB |  | ●"


def test_the_embedder_reads_a_table_row_without_its_empty_cells() -> None:
    from app.library.chunking import embedding_text
    from app.library.models import ChunkDraft

    table = ChunkDraft(1, "Model | RS485 | Input\nX-MB |  | ●", (), kind="table")
    assert embedding_text(table) == "Model | RS485 | Input\nX-MB | ●"


def test_a_title_without_a_word_gives_way_to_the_file_name(raws: list[RawPage]) -> None:
    doc = pymupdf.open()
    doc.set_metadata({"title": "CPY Document Title"})  # a template's placeholder
    assert document_title(doc, None, "Tuner Manual") == "Tuner Manual"
    doc.set_metadata({"title": "#290"})  # a job number
    assert document_title(doc, None, "Heat Pump Manual") == "Heat Pump Manual"
    doc.set_metadata({"title": "说明书 uv-K5"})  # a word in any script is a word
    assert document_title(doc, None, "Radio Manual") == "说明书 uv-K5"


def test_a_title_in_a_script_the_manual_is_not_printed_in_gives_way() -> None:
    # A print job's name in the maker's language on a manual printed in English.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 90), "Two-Way Radio", fontsize=24)
    body = "Hold the PTT key to transmit and release it to listen to the channel."
    page.insert_text((72, 140), body, fontsize=10)
    doc.set_metadata({"title": "说明书 uv-K5英文（10X9.5cm）230216"})
    assert document_title(doc, read_page(doc[0]), "Radio Manual") == "Two-Way Radio"
    # A title in the script the manual is printed in stays.
    doc.set_metadata({"title": "UV-K5 Radio Guide"})
    assert document_title(doc, read_page(doc[0]), "Radio Manual") == "UV-K5 Radio Guide"


def test_a_heading_of_the_titles_size_further_down_is_not_part_of_the_title() -> None:
    # A cover that opens onto the contents: the heading "Contents" is as large as the title.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "DP C240", fontsize=20)
    page.insert_text((72, 104), "Display Manual", fontsize=20)
    page.insert_text((72, 400), "Contents", fontsize=20)
    page.insert_text((72, 430), "Introduction 2", fontsize=8)
    assert document_title(doc, read_page(doc[0]), "fallback") == "DP C240 Display Manual"


def _grid_pdf(rows: list[str], cell: float = 14.0) -> pymupdf.Document:
    """A display drawn as a ruled grid with one character in each cell, as manuals draw a
    keypad's screen."""
    doc = pymupdf.open()
    page = doc.new_page()
    left, top, width = 72.0, 100.0, max(len(r) for r in rows)
    for i in range(len(rows) + 1):
        page.draw_line((left, top + i * cell), (left + width * cell, top + i * cell))
    for j in range(width + 1):
        page.draw_line((left + j * cell, top), (left + j * cell, top + len(rows) * cell))
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            if ch != " ":
                page.insert_text((left + j * cell + 4, top + i * cell + 11), ch, fontsize=10)
    return doc


def test_a_screen_drawn_one_character_to_a_cell_reads_as_its_words() -> None:
    doc = _grid_pdf([" Enter Code ", "   ....     "])

    (table,) = read_page(doc[0]).tables

    assert table.rows == [("Enter Code",), ("....",)]


def test_only_a_grid_of_single_characters_with_runs_of_letters_is_a_screen() -> None:
    from app.library.extract import character_grid

    screen = [("", "W", "a", "l", "k", "", "T", "e", "s", "t")]
    marks = [("", "●", "", "●", "●", "", "●"), ("", "", "●", "", "●", "●", "")]
    labelled = [("Model", "Y", "N", "Y", "Y", "N", "Y"), ("X-MB", "N", "Y", "Y", "N", "Y", "N")]
    narrow = [("O", "K", "!")]
    assert character_grid(screen)
    assert not character_grid(marks)  # no letters run on
    assert not character_grid(labelled)  # a row label is more than one character
    assert not character_grid(narrow)  # too narrow to be a screen


def test_a_cell_two_rows_high_joins_the_row_it_labels() -> None:
    """The table finder gives a tall cell ("Perimeter", centred on its row of responses)
    and a header's second line rows of their own, within the row that holds them."""
    from app.library.extract import merge_spanned_rows

    rows = [
        (("Attribute", "Disarm", "Under"), (50.0, 100.0, 500.0, 140.0)),
        (("", "", "Entry Timer"), (300.0, 120.0, 500.0, 140.0)),
        (("", "No Response", "Delayed Alarm"), (50.0, 140.0, 500.0, 180.0)),
        (("Perimeter", "", ""), (50.0, 150.0, 120.0, 170.0)),
        (("Interior", "No Response", "Instant Alarm"), (50.0, 180.0, 500.0, 200.0)),
    ]

    merged = merge_spanned_rows(rows)

    assert [cells for cells, _ in merged] == [
        ("Attribute", "Disarm", "Under Entry Timer"),
        ("Perimeter", "No Response", "Delayed Alarm"),
        ("Interior", "No Response", "Instant Alarm"),
    ]
    assert [box for _, box in merged] == [rows[0][1], rows[2][1], rows[4][1]]


def test_rows_one_below_the_other_stay_apart() -> None:
    from app.library.extract import merge_spanned_rows

    rows = [
        (("Model", "Fuse"), (0.0, 0.0, 100.0, 10.0)),
        (("X-1", "20A"), (0.0, 10.0, 100.0, 20.0)),
        (("X-2", ""), (0.0, 20.0, 100.0, 30.0)),
    ]
    assert merge_spanned_rows(rows) == rows


def test_a_specification_list_set_in_two_columns_reads_label_and_value_together() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=300, height=200)
    labels = "Channel:\nFrequency Stability:\nWeight:\nOperating Temperature:"
    values = "200\n\u00b11ppm\n234 g\n-20 \u00b0C to +60 \u00b0C"
    page.insert_textbox(pymupdf.Rect(20, 40, 130, 120), labels, fontsize=8, align=2)
    page.insert_textbox(pymupdf.Rect(138, 40, 280, 120), values, fontsize=8)
    raw = read_page(page)
    # PyMuPDF reads the labels and the values as blocks apart: every label, then every value.
    assert [ln.text for ln in raw.lines][-1] == "-20 \u00b0C to +60 \u00b0C"
    content = build_page(raw, 8.0, set())
    assert [ln.text for b in content.blocks for ln in b.lines] == [
        "Channel: 200",
        "Frequency Stability: \u00b11ppm",
        "Weight: 234 g",
        "Operating Temperature: -20 \u00b0C to +60 \u00b0C",
    ]
