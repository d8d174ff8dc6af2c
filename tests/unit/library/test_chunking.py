"""Chunking: structure-following chunks that keep their page, boxes and section heading."""

from __future__ import annotations

from itertools import pairwise

from app.library.chunking import chunk_pages, embedding_text
from app.library.models import Block, BlockKind, PageContent, TextLine


class PageBuilder:
    """Lays out blocks top to bottom, one 14-point line after another."""

    def __init__(self, number: int) -> None:
        self.number = number
        self.blocks: list[Block] = []
        self.y = 60.0

    def add(self, kind: BlockKind, *texts: str, rows: tuple[tuple[str, ...], ...] = ()) -> None:
        lines = []
        for text in texts:
            lines.append(TextLine(text, (60.0, self.y, 60.0 + 5 * len(text), self.y + 12), 10.0))
            self.y += 14
        self.blocks.append(Block(kind, tuple(lines), rows=rows))
        self.y += 8

    def table(self, rows: list[tuple[str, ...]]) -> None:
        self.add("table", *(" | ".join(r) for r in rows), rows=tuple(rows))

    def page(self) -> PageContent:
        return PageContent(self.number, 595.0, 842.0, tuple(self.blocks), ())


def sentence(n: int) -> str:
    return f"Sentence {n} explains how the zone loop is wired to the end-of-line resistor."


def test_a_chunk_never_crosses_a_page_and_keeps_its_page_number() -> None:
    first, second = PageBuilder(1), PageBuilder(2)
    first.add("paragraph", "The battery is 12 V 7 Ah.", "Replace it every three years.")
    second.add("paragraph", "Charge current is limited to 400 mA.")

    chunks = chunk_pages([first.page(), second.page()])

    assert [(c.page, c.text) for c in chunks] == [
        (1, "The battery is 12 V 7 Ah.\nReplace it every three years."),
        (2, "Charge current is limited to 400 mA."),
    ]


def test_chunks_carry_the_section_and_subsection_they_sit_under() -> None:
    page = PageBuilder(4)
    page.add("heading", "3. Wiring the Panel")
    page.add("paragraph", "Wire every zone before powering up.")
    page.add("heading", "Terminal Block")
    page.add("paragraph", "AUX+ gives 12 V.")
    page.add("heading", "4. Programming")
    page.add("paragraph", "Enter the installer code.")

    chunks = chunk_pages([page.page()])

    assert [(c.heading, c.text) for c in chunks] == [
        ("3. Wiring the Panel", "3. Wiring the Panel\nWire every zone before powering up."),
        ("3. Wiring the Panel > Terminal Block", "Terminal Block\nAUX+ gives 12 V."),
        ("4. Programming", "4. Programming\nEnter the installer code."),
    ]


def test_a_section_heading_carries_over_to_the_next_page() -> None:
    first, second = PageBuilder(1), PageBuilder(2)
    first.add("heading", "5. Batteries")
    first.add("paragraph", "Use sealed lead-acid batteries.")
    second.add("paragraph", "Check the battery every year.")

    chunks = chunk_pages([first.page(), second.page()])

    assert chunks[-1].page == 2
    assert chunks[-1].heading == "5. Batteries"


def test_a_heading_alone_is_not_a_chunk_of_its_own() -> None:
    page = PageBuilder(1)
    page.add("heading", "6. Appendix")
    page.add("heading", "7. Index")

    assert chunk_pages([page.page()]) == []


def test_long_sections_are_cut_to_size_with_one_line_of_overlap() -> None:
    page = PageBuilder(1)
    page.add("paragraph", *(sentence(n) for n in range(20)))

    chunks = chunk_pages([page.page()], max_chars=300, overlap_lines=1)

    assert len(chunks) > 3
    assert all(len(c.text) <= 300 for c in chunks)
    for before, after in pairwise(chunks):
        assert after.lines[0] == before.lines[-1]
    text = "\n".join(c.text for c in chunks)
    assert all(sentence(n) in text for n in range(20))


def test_without_overlap_no_line_is_repeated() -> None:
    page = PageBuilder(1)
    page.add("paragraph", *(sentence(n) for n in range(20)))

    chunks = chunk_pages([page.page()], max_chars=300, overlap_lines=0)

    lines = [line.text for c in chunks for line in c.lines]
    assert lines == [sentence(n) for n in range(20)]


def test_a_table_stays_whole_in_one_chunk_of_its_own() -> None:
    page = PageBuilder(2)
    page.add("heading", "3.1 Terminal Block")
    page.add("paragraph", "The terminals are listed below.")
    rows = [("Terminal", "Function"), ("AUX+", "12 V output"), ("PGM", "100 mA output")]
    page.table(rows)
    page.add("paragraph", "Tighten every screw.")

    chunks = chunk_pages([page.page()])

    (table,) = [c for c in chunks if c.kind == "table"]
    assert table.text == "Terminal | Function\nAUX+ | 12 V output\nPGM | 100 mA output"
    assert table.heading == "3.1 Terminal Block"
    assert [c.text for c in chunks if c.kind != "table"] == [
        "3.1 Terminal Block\nThe terminals are listed below.",
        "Tighten every screw.",
    ]


def test_a_long_table_is_split_between_rows_and_each_part_repeats_the_header() -> None:
    page = PageBuilder(1)
    rows = [("Code", "Event")] + [
        (f"{n:03d}", f"Zone {n} burglary alarm restore") for n in range(40)
    ]
    page.table(rows)

    chunks = chunk_pages([page.page()], max_chars=300)

    assert len(chunks) > 1
    assert all(c.kind == "table" and c.text.startswith("Code | Event\n") for c in chunks)
    body = [line for c in chunks for line in c.text.split("\n")[1:]]
    assert body == [" | ".join(r) for r in rows[1:]]


def test_list_items_make_a_list_chunk() -> None:
    page = PageBuilder(1)
    page.add("list_item", "• Disconnect mains power.")
    page.add("list_item", "• Disconnect the battery.")

    (chunk,) = chunk_pages([page.page()])

    assert chunk.kind == "list_item"
    assert chunk.text == "• Disconnect mains power.\n• Disconnect the battery."


def test_a_chunk_box_covers_exactly_its_lines() -> None:
    page = PageBuilder(1)
    page.add("paragraph", "short", "a much longer second line of text")

    (chunk,) = chunk_pages([page.page()])

    x0, y0, x1, y1 = chunk.box
    assert (x0, y0) == chunk.lines[0].box[:2]
    assert x1 == max(line.box[2] for line in chunk.lines)
    assert y1 == chunk.lines[-1].box[3]


def test_the_embedder_sees_the_heading_once() -> None:
    page = PageBuilder(1)
    page.add("heading", "8. Maintenance")
    page.add("paragraph", "Test the siren monthly.")
    page.add("paragraph", *(sentence(n) for n in range(12)))

    chunks = chunk_pages([page.page()], max_chars=300)

    assert embedding_text(chunks[0]) == chunks[0].text  # already starts with its heading
    assert embedding_text(chunks[-1]) == f"8. Maintenance\n{chunks[-1].text}"


def test_a_contents_page_opens_no_section_of_its_own_entries() -> None:
    # A contents page printing its page numbers apart from its entries, some of its
    # entries set as headings: the last of them must not head the pages that follow.
    contents, body = PageBuilder(4), PageBuilder(5)
    contents.add("heading", "CONTENTS")
    entries = [f"6.{n} Setting number {n}" for n in range(1, 10)]
    contents.add("paragraph", *entries[:-1])
    contents.add("heading", entries[-1])
    contents.add("paragraph", *(str(n) for n in range(3, 12)))
    body.add("paragraph", "Read this before first use.")
    body.add("heading", "◆(6.2)Switch Main Channel")
    body.add("paragraph", "Press F+2 to switch the main channel.")
    body.add("heading", "Keypad Key")
    body.add("paragraph", "The keys light for 5 seconds.")

    chunks = chunk_pages([contents.page(), body.page()])

    assert {c.heading for c in chunks if c.page == 4} == {"CONTENTS"}
    assert [(c.heading, c.text.split("\n")[-1]) for c in chunks if c.page == 5] == [
        ("", "Read this before first use."),
        # A title numbered in brackets after an ornament opens a section.
        ("◆(6.2)Switch Main Channel", "Press F+2 to switch the main channel."),
        ("◆(6.2)Switch Main Channel > Keypad Key", "The keys light for 5 seconds."),
    ]


def test_a_contents_entry_is_never_a_heading() -> None:
    page = PageBuilder(2)
    page.add("heading", "Table of Contents")
    page.add("heading", "1. Application Overview ____________ 4")
    page.add("paragraph", *(f"1.{n}. Part {n} ______________ {n + 4}" for n in range(1, 8)))
    after = PageBuilder(3)
    after.add("paragraph", "Unpack the panel.")

    chunks = chunk_pages([page.page(), after.page()])

    assert {c.heading for c in chunks if c.page == 2} == {"Table of Contents"}
    assert [c.heading for c in chunks if c.page == 3] == [""]


def test_a_contents_page_of_unnumbered_titles_heads_no_later_page() -> None:
    # A one-word contents title set large, its unnumbered entries each beside its page
    # number: the title heads the contents page only, not every section after it.
    contents, body = PageBuilder(1), PageBuilder(2)
    contents.add("heading", "CONTENT")
    titles = ["Introduction", "Drawing", "Specifications", "Functions", "Buttons"]
    titles += ["Operation", "Settings", "Error codes", "Installation"]
    contents.add(
        "paragraph",
        *(
            x
            for n, t in zip([2, 3, 4, 5, 7, 7, 10, 15, 16], titles, strict=True)
            for x in (t, str(n))
        ),
    )
    body.add("heading", "INTRODUCTION")
    body.add("paragraph", "Name: intelligent display.")

    chunks = chunk_pages([contents.page(), body.page()])

    assert {c.heading for c in chunks if c.page == 1} == {"CONTENT"}
    assert [c.heading for c in chunks if c.page == 2] == ["INTRODUCTION"]
