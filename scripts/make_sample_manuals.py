#!/usr/bin/env python3
"""Generate two sample manuals of a fictional alarm panel, plus questions about them.

Lantern needs realistic equipment manuals to develop and test against, and we cannot ship
anybody's copyrighted documentation. This script draws, with PyMuPDF only, the installation
and user manuals of the invented "Lumen AX-200 Hybrid Alarm Panel" by the invented
"Northlight Security": numbered headings, paragraphs, lists, ruled tables, vector wiring
diagrams and a keypad drawing, with every word extractable by ``page.get_text()``.

It also writes ``questions.json``, a small benchmark in the dataset format of the design
document. Its page numbers are not typed in: every block that holds an answer carries an
anchor, the layout records the pages each anchor landed on, and each question's pages are the
pages of that span whose text holds the question's key facts. Editing the content therefore
cannot leave a question pointing at the wrong page; a fact that is nowhere to be found stops
the script.

Usage: ``python scripts/make_sample_manuals.py [--out manuals]``
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pymupdf

Color = tuple[float, float, float]
Pt = tuple[float, float]

INK: Color = (0.1, 0.1, 0.12)
GREY: Color = (0.42, 0.42, 0.45)
ACCENT: Color = (0.05, 0.22, 0.45)
RULE: Color = (0.35, 0.35, 0.38)
HEADER_FILL: Color = (0.85, 0.89, 0.95)
WHITE: Color = (1.0, 1.0, 1.0)
RED: Color = (0.8, 0.1, 0.1)
GREEN: Color = (0.1, 0.55, 0.2)
YELLOW: Color = (0.85, 0.65, 0.0)

PAGE = pymupdf.paper_rect("a4")
LEFT, RIGHT = 62.0, PAGE.width - 62.0
TOP, BOTTOM = 76.0, PAGE.height - 64.0
CONTENT_WIDTH = RIGHT - LEFT
FIXED_DATE = "D:20250314090000Z"

FONTS: dict[str, pymupdf.Font] = {
    name: pymupdf.Font(name) for name in ("helv", "hebo", "heit", "cour", "zadb")
}
BOLD = {"helv": "hebo", "hebo": "hebo", "heit": "hebo", "cour": "cour"}
FALLBACK_FONT = "zadb"  # the only built-in font with the star key glyph

# Words never separated from the number before them, so "2.2 kΩ" or "30 s" stays on one line.
UNITS = frozenset(
    (
        "V",
        "A",
        "mA",
        "kΩ",
        "Ω",
        "Ah",
        "VA",
        "h",
        "s",
        "ms",
        "min",
        "mm",
        "m",
        "mm²",
        "°C",
        "%",
        "AWG",
        "MHz",
        "kg",
        "W",
        "seconds",
        "minutes",
        "hours",
        "years",
        "days",
        "events",
        "zones",
        "digits",
        "characters",
        "trips",
    )
)
NO_BREAK_AFTER = frozenset({"✱", "#"})


# ---------------------------------------------------------------------------------------------
# Content blocks: a manual is a tuple of these, laid out in order.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Heading:
    """A numbered heading; its level is the depth of its number ("3.2 ..." is level 2)."""

    text: str

    @property
    def level(self) -> int:
        number = self.text.split(" ", 1)[0]
        return number.count(".") + 1 if number[:1].isdigit() else 3


@dataclass(frozen=True)
class Para:
    """A paragraph; ``**bold**`` marks bold words."""

    text: str
    anchor: str | None = None


@dataclass(frozen=True)
class Items:
    """A bulleted list, or numbered steps when ``numbered``."""

    items: tuple[str, ...]
    numbered: bool = False
    anchor: str | None = None


@dataclass(frozen=True)
class Note:
    """A short boxed remark with a bold label (NOTE, CAUTION)."""

    text: str
    label: str = "NOTE"
    anchor: str | None = None


@dataclass(frozen=True)
class Table:
    """A ruled table; ``body`` holds one row per line, cells separated by " | "."""

    caption: str
    header: str
    widths: tuple[float, ...]
    body: str
    anchor: str | None = None

    @property
    def rows(self) -> list[list[str]]:
        lines = [line.strip() for line in self.body.strip().splitlines() if line.strip()]
        return [[cell.strip() for cell in line.split(" | ")] for line in lines]

    @property
    def columns(self) -> list[str]:
        return [cell.strip() for cell in self.header.split(" | ")]


@dataclass(frozen=True)
class Figure:
    """A vector drawing made by ``draw`` inside a full-width box ``height`` points tall."""

    caption: str
    height: float
    draw: Callable[[Canvas], None]
    anchor: str | None = None


Block = Heading | Para | Items | Note | Table | Figure


@dataclass(frozen=True)
class ManualSpec:
    """One manual: its identity (title page, header, footer) and its content."""

    key: str
    filename: str
    kind: str
    doc_number: str
    version: str
    date: str
    audience: str
    blocks: tuple[Block, ...]


@dataclass(frozen=True)
class Placement:
    """Where an anchored block landed: its pages (1-based), section and caption."""

    pages: tuple[int, ...]
    section: str
    label: str | None


# ---------------------------------------------------------------------------------------------
# Text: words with fonts, width measurement with a glyph fallback, greedy line wrapping.
# ---------------------------------------------------------------------------------------------


@dataclass
class Word:
    """A word to draw: ``spaced`` draws a space before it, ``breakable`` allows a line break."""

    text: str
    font: str
    spaced: bool
    breakable: bool


@lru_cache(maxsize=4096)
def has_glyph(font: str, char: str) -> bool:
    """Whether ``font`` can draw ``char`` (cached: asked for every character drawn)."""
    return char == " " or FONTS[font].has_glyph(ord(char)) > 0


def font_runs(text: str, font: str) -> list[tuple[str, str]]:
    """Split ``text`` into (text, font) runs, using the fallback font for missing glyphs."""
    runs: list[tuple[str, str]] = []
    for char in text:
        face = font if has_glyph(font, char) else FALLBACK_FONT
        if runs and runs[-1][1] == face:
            runs[-1] = (runs[-1][0] + char, face)
        else:
            runs.append((char, face))
    return runs


def text_width(text: str, font: str, size: float) -> float:
    """Width of ``text`` in points as it will be drawn (fallback glyphs included)."""
    return sum(FONTS[face].text_length(run, size) for run, face in font_runs(text, font))


def parse_words(text: str, font: str) -> list[Word]:
    """Turn marked-up text into words; ``**`` toggles the bold face."""
    words: list[Word] = []
    space = False
    for index, segment in enumerate(text.split("**")):
        face = BOLD[font] if index % 2 else font
        for position, part in enumerate(segment.split(" ")):
            space = space or position > 0
            if part:
                glued = bool(words) and (not space or is_glued(words[-1].text, part))
                words.append(Word(part, face, space and bool(words), not glued))
                space = False
    return words


def is_glued(previous: str, word: str) -> bool:
    """Whether ``word`` must stay on the line of ``previous`` (a unit, or a key after ✱)."""
    unit = word.rstrip(".,;:)")
    return (previous[-1:].isdigit() and unit in UNITS) or previous in NO_BREAK_AFTER


def chunk_width(chunk: list[Word], size: float, line_start: bool) -> float:
    """Width of words that must stay together, with their leading space unless at line start."""
    width = 0.0
    for index, word in enumerate(chunk):
        shown = " " + word.text if word.spaced and not (line_start and index == 0) else word.text
        width += text_width(shown, word.font, size)
    return width


def chunks(words: list[Word]) -> Iterator[list[Word]]:
    """Group words between allowed break points."""
    group: list[Word] = []
    for word in words:
        if group and word.breakable:
            yield group
            group = []
        group.append(word)
    if group:
        yield group


def wrap(words: list[Word], size: float, width: float) -> list[list[Word]]:
    """Greedy line breaking of ``words`` into lines at most ``width`` wide."""
    lines: list[list[Word]] = [[]]
    x = 0.0
    for chunk in chunks(words):
        needed = chunk_width(chunk, size, not lines[-1])
        if lines[-1] and x + needed > width:
            lines.append([])
            needed = chunk_width(chunk, size, True)
            x = 0.0
        lines[-1].extend(chunk)
        x += needed
    return lines


def normalise(text: str) -> str:
    """Collapse whitespace so facts match across line breaks."""
    return " ".join(text.split())


# ---------------------------------------------------------------------------------------------
# Layout: one writer per manual, page by page, recording headings and anchors.
# ---------------------------------------------------------------------------------------------

BODY_SIZE, BODY_LEADING = 10.0, 14.2
CELL_SIZE, CELL_LEADING, CELL_PAD = 8.8, 11.2, 4.0
HEADING_STYLE = {1: ("hebo", 17.0, ACCENT), 2: ("hebo", 12.5, ACCENT), 3: ("hebo", 10.5, INK)}


class ManualWriter:
    """Lays out one manual's blocks on A4 pages and records where each anchored block went."""

    def __init__(self, spec: ManualSpec) -> None:
        self.spec = spec
        self.doc = pymupdf.open()
        self.placements: dict[str, Placement] = {}
        self.headings: list[tuple[int, str, int]] = []
        self.section = ""
        self.chapter = "0"
        self.counters: dict[str, int] = {}
        self.page: pymupdf.Page | None = None
        self.shape: pymupdf.Shape | None = None
        self.writers: list[tuple[Color, pymupdf.TextWriter]] = []
        self.y = TOP

    # -- page handling -------------------------------------------------------------------------

    @property
    def page_number(self) -> int:
        """1-based number of the page being written."""
        return self.doc.page_count

    def begin(self, page: pymupdf.Page) -> None:
        """Start drawing on ``page`` (a new one, or an earlier one being decorated)."""
        self.page, self.shape, self.writers = page, page.new_shape(), []

    def end(self) -> None:
        """Commit the current page's drawings, then its text on top of them."""
        if self.page is None or self.shape is None:
            return
        self.shape.commit()
        for color, writer in self.writers:
            writer.write_text(self.page, color=color)
        self.page, self.shape, self.writers = None, None, []

    def new_page(self) -> None:
        """Finish the current page and continue at the top of a fresh one."""
        self.end()
        self.begin(self.doc.new_page(width=PAGE.width, height=PAGE.height))
        self.y = TOP

    def ensure(self, height: float) -> None:
        """Break the page unless ``height`` points still fit above the bottom margin."""
        if self.y + height > BOTTOM:
            self.new_page()

    # -- drawing primitives --------------------------------------------------------------------

    def put(
        self, x: float, baseline: float, text: str, font: str, size: float, color: Color = INK
    ) -> float:
        """Draw ``text`` with its baseline at ``baseline``; return its width.

        Text goes into one TextWriter per run of the same colour, so the content stream keeps
        reading order and plain ``get_text()`` returns a heading before its paragraph.
        """
        if not self.writers or self.writers[-1][0] != color:
            self.writers.append((color, pymupdf.TextWriter(PAGE)))
        writer = self.writers[-1][1]
        start = x
        for run, face in font_runs(text, font):
            writer.append((x, baseline), run, font=FONTS[face], fontsize=size)
            x += FONTS[face].text_length(run, size)
        return x - start

    def put_centred(
        self, x_mid: float, baseline: float, text: str, font: str, size: float, color: Color = INK
    ) -> None:
        """Draw ``text`` centred on ``x_mid``."""
        self.put(x_mid - text_width(text, font, size) / 2, baseline, text, font, size, color)

    def put_words(
        self, line: list[Word], x: float, baseline: float, size: float, color: Color = INK
    ) -> None:
        """Draw one wrapped line, writing real spaces so extraction keeps word boundaries."""
        for index, word in enumerate(line):
            shown = " " + word.text if word.spaced and index else word.text
            x += self.put(x, baseline, shown, word.font, size, color)

    def stroke(self, points: list[Pt], color: Color = RULE, width: float = 0.6) -> None:
        """Draw an open polyline."""
        assert self.shape is not None
        self.shape.draw_polyline(points)
        self.shape.finish(color=color, width=width, closePath=False)

    def frame(
        self,
        rect: pymupdf.Rect,
        color: Color | None = RULE,
        fill: Color | None = None,
        width: float = 0.6,
        radius: float | None = None,
    ) -> None:
        """Draw a rectangle outline and/or fill."""
        assert self.shape is not None
        self.shape.draw_rect(rect, radius=radius)
        self.shape.finish(color=color, fill=fill, width=width)

    # -- text blocks ---------------------------------------------------------------------------

    def flow(
        self, text: str, x: float, width: float, font: str = "helv", prefix: str | None = None
    ) -> None:
        """Wrap ``text`` into lines, breaking pages between lines; ``prefix`` hangs at left."""
        lines = wrap(parse_words(text, font), BODY_SIZE, width)
        for index, line in enumerate(lines):
            self.ensure(BODY_LEADING)
            baseline = self.y + BODY_SIZE
            if prefix and index == 0:
                self.put(
                    x - 16, baseline, prefix, BOLD[font] if prefix[0].isdigit() else font, BODY_SIZE
                )
            self.put_words(line, x, baseline, BODY_SIZE)
            self.y += BODY_LEADING

    def write_heading(self, block: Heading, following: Block | None) -> None:
        """Draw a heading; chapters start a new page, and all are recorded for the contents.

        A section heading moves to the next page with a table that follows it directly when
        that table is going to start there.
        """
        font, size, color = HEADING_STYLE[block.level]
        if block.level == 1:
            if self.y > TOP:
                self.new_page()
            self.chapter = block.text.split(" ", 1)[0]
        else:
            self.ensure(size * 2 + 70)
            after = self.y + 10 + size * 1.45
            if isinstance(following, Table) and not self.table_fits_at(following, after):
                self.new_page()
            self.y += 10 if self.y > TOP else 0
        self.put(LEFT, self.y + size, block.text, font, size, color)
        self.y += size * 1.45
        if block.level == 1:
            self.stroke([(LEFT, self.y), (RIGHT, self.y)], ACCENT, 1.2)
            self.y += 12
        if block.level <= 2:
            self.section = block.text
            self.headings.append((block.level, block.text, self.page_number))

    def write_para(self, block: Para) -> None:
        """A paragraph of body text."""
        self.flow(block.text, LEFT, CONTENT_WIDTH)
        self.y += 6

    def write_items(self, block: Items) -> None:
        """A bulleted or numbered list with hanging indents."""
        for index, item in enumerate(block.items, start=1):
            prefix = f"{index}." if block.numbered else "•"
            self.ensure(BODY_LEADING * 2)
            self.flow(item, LEFT + 20, CONTENT_WIDTH - 20, prefix=prefix)
            self.y += 2.5
        self.y += 4

    def write_note(self, block: Note) -> None:
        """A remark with an accent bar, kept on one page."""
        text = f"**{block.label}:** {block.text}"
        lines = wrap(parse_words(text, "helv"), BODY_SIZE, CONTENT_WIDTH - 18)
        height = len(lines) * BODY_LEADING
        self.ensure(height + 10)
        self.y += 2
        self.stroke([(LEFT + 3, self.y), (LEFT + 3, self.y + height)], ACCENT, 2.5)
        for line in lines:
            self.put_words(line, LEFT + 14, self.y + BODY_SIZE, BODY_SIZE)
            self.y += BODY_LEADING
        self.y += 8

    # -- tables and figures --------------------------------------------------------------------

    def next_label(self, kind: str, caption: str) -> str:
        """Number a table or figure within its chapter: "Table 3-1 Terminal functions"."""
        count = self.counters.get(kind + self.chapter, 0) + 1
        self.counters[kind + self.chapter] = count
        return f"{kind} {self.chapter}-{count} {caption}"

    def table_row(
        self, cells: list[str], widths: list[float], font: str
    ) -> tuple[list[list[list[Word]]], float]:
        """Wrap each cell of a row; return the wrapped cells and the row height."""
        wrapped = [
            wrap(parse_words(cell, font), CELL_SIZE, width - 2 * CELL_PAD)
            for cell, width in zip(cells, widths, strict=True)
        ]
        lines = max(len(cell) for cell in wrapped)
        return wrapped, 2 * CELL_PAD + CELL_SIZE * 1.05 + (lines - 1) * CELL_LEADING

    def draw_row(self, cells: list[str], widths: list[float], header: bool) -> None:
        """Draw one table row with a ruled border around every cell."""
        font = "hebo" if header else "helv"
        wrapped, height = self.table_row(cells, widths, font)
        x = LEFT
        for lines, width in zip(wrapped, widths, strict=True):
            fill = HEADER_FILL if header else None
            self.frame(pymupdf.Rect(x, self.y, x + width, self.y + height), RULE, fill)
            for index, line in enumerate(lines):
                baseline = self.y + CELL_PAD + CELL_SIZE * 0.85 + index * CELL_LEADING
                self.put_words(line, x + CELL_PAD, baseline, CELL_SIZE)
            x += width
        self.y += height

    def table_metrics(self, block: Table) -> tuple[list[float], float, list[float]]:
        """Column widths, header height and row heights of a table."""
        total = sum(block.widths)
        widths = [CONTENT_WIDTH * w / total for w in block.widths]
        header = self.table_row(block.columns, widths, "hebo")[1]
        heights = [self.table_row(row, widths, "helv")[1] for row in block.rows]
        return widths, header, heights

    def write_table(self, block: Table) -> str:
        """Caption, header and rows; a row that does not fit moves on with the header repeated."""
        label = self.next_label("Table", block.caption)
        widths, _, heights = self.table_metrics(block)
        if not self.table_fits_at(block, self.y):
            self.new_page()
        self.table_caption(label, block.columns, widths)
        for row, height in zip(block.rows, heights, strict=True):
            if self.y + height > BOTTOM:
                self.new_page()
                self.table_caption(f"{label} (continued)", block.columns, widths)
            self.draw_row(row, widths, header=False)
        self.y += 12
        return label

    def table_fits_at(self, block: Table, y: float) -> bool:
        """Whether a table may start at ``y``: its header and two rows fit, and it would not
        leave 1 to 3 rows alone on the next page when the whole table fits on one page."""
        _, header, heights = self.table_metrics(block)
        if y + 30 + header + sum(heights[:2]) > BOTTOM:
            return False
        if 19 + header + sum(heights) > BOTTOM - TOP:
            return True
        y += 19 + header
        fitting = 0
        while fitting < len(heights) and y + heights[fitting] <= BOTTOM:
            y += heights[fitting]
            fitting += 1
        return not 1 <= len(heights) - fitting <= 3

    def table_caption(self, label: str, columns: list[str], widths: list[float]) -> None:
        """The numbered caption above a table (or its continuation) and the header row."""
        self.y += 4
        self.put(LEFT, self.y + 9, label, "hebo", 9.5, GREY)
        self.y += 15
        self.draw_row(columns, widths, header=True)

    def write_figure(self, block: Figure) -> str:
        """A drawing in a reserved box with a numbered caption under it."""
        label = self.next_label("Figure", block.caption)
        self.ensure(block.height + 34)
        self.y += 6
        block.draw(Canvas(self, LEFT, self.y))
        self.y += block.height + 8
        self.put_centred((LEFT + RIGHT) / 2, self.y + 9, label, "hebo", 9.5, GREY)
        self.y += 24
        return label

    # -- the whole manual ----------------------------------------------------------------------

    def write(self, block: Block, following: Block | None = None) -> None:
        """Lay out one block and, if anchored, record the pages it spans."""
        start = self.page_number
        label: str | None = None
        if isinstance(block, Heading):
            self.write_heading(block, following)
        elif isinstance(block, Para):
            self.write_para(block)
        elif isinstance(block, Items):
            self.write_items(block)
        elif isinstance(block, Note):
            self.write_note(block)
        elif isinstance(block, Table):
            label = self.write_table(block)
        else:
            label = self.write_figure(block)
        anchor = getattr(block, "anchor", None)
        if anchor:
            if anchor in self.placements:
                raise ValueError(f"anchor {anchor!r} used twice in {self.spec.filename}")
            pages = tuple(range(start, self.page_number + 1))
            self.placements[anchor] = Placement(pages, self.section, label)

    def render(self) -> pymupdf.Document:
        """Title page, reserved contents pages, the content, then contents and page furniture."""
        self.begin(self.doc.new_page(width=PAGE.width, height=PAGE.height))
        draw_title_page(self)
        self.end()
        for _ in range(contents_pages(self.spec.blocks)):
            self.doc.new_page(width=PAGE.width, height=PAGE.height)
        self.new_page()
        blocks = self.spec.blocks
        for block, following in zip(blocks, (*blocks[1:], None), strict=True):
            self.write(block, following)
        self.end()
        draw_contents(self)
        for page in list(self.doc)[1:]:
            self.begin(page)
            draw_header_footer(self, page.number + 1)
            self.end()
        self.doc.set_toc([[1, "Contents", 2]] + [list(entry) for entry in self.headings])
        self.doc.set_metadata(self.metadata())
        self.doc.subset_fonts()
        return self.doc

    def metadata(self) -> dict[str, str]:
        """Fixed document information, so that two runs produce the same bytes."""
        return {
            "title": f"Lumen AX-200 Hybrid Alarm Panel - {self.spec.kind}",
            "author": "Northlight Security (fictional)",
            "subject": f"{self.spec.doc_number} version {self.spec.version}",
            "creator": "Lantern scripts/make_sample_manuals.py",
            "producer": f"PyMuPDF {pymupdf.VersionBind}",
            "creationDate": FIXED_DATE,
            "modDate": FIXED_DATE,
        }


# ---------------------------------------------------------------------------------------------
# Page furniture: title page, contents, running header and footer.
# ---------------------------------------------------------------------------------------------


def draw_logo(writer: ManualWriter, x: float, y: float) -> None:
    """The Northlight mark: a lantern light with rays."""
    assert writer.shape is not None
    writer.shape.draw_circle((x, y), 11)
    writer.shape.finish(color=WHITE, fill=(1.0, 0.83, 0.35), width=1.2)
    for dx, dy in ((0, -1), (0.87, -0.5), (-0.87, -0.5), (1, 0.2), (-1, 0.2)):
        writer.stroke([(x + dx * 15, y + dy * 15), (x + dx * 21, y + dy * 21)], WHITE, 1.4)


def draw_title_page(writer: ManualWriter) -> None:
    """Brand band, product name, manual type, version and date, and the legal lines."""
    spec = writer.spec
    writer.frame(pymupdf.Rect(0, 0, PAGE.width, 118), None, ACCENT)
    draw_logo(writer, LEFT + 14, 62)
    writer.put(LEFT + 44, 58, "NORTHLIGHT SECURITY", "hebo", 15, WHITE)
    writer.put(LEFT + 44, 74, "Intrusion and fire alarm systems", "helv", 9.5, WHITE)
    writer.put(LEFT, 300, "Lumen AX-200", "hebo", 36, ACCENT)
    writer.put(LEFT, 334, "Hybrid Alarm Panel", "helv", 22, INK)
    writer.stroke([(LEFT, 356), (RIGHT, 356)], ACCENT, 2)
    writer.put(LEFT, 392, spec.kind, "hebo", 26, INK)
    lines = (
        f"Version {spec.version}  ·  {spec.date}",
        f"Document {spec.doc_number}",
        "For control board NLS-AX200-PCB with firmware 2.4 or later",
        spec.audience,
    )
    for index, line in enumerate(lines):
        writer.put(LEFT, 424 + index * 17, line, "helv", 11, GREY)
    legal = (
        "© 2025 Northlight Security Ltd. Lumen and Northlight are trademarks of "
        "Northlight Security Ltd. Information in this document is subject to change "
        "without notice. Fictional product: sample documentation generated for "
        "testing the Lantern manual assistant."
    )
    writer.y = 700
    writer.flow(legal, LEFT, CONTENT_WIDTH)


CONTENTS_TOP, CONTENTS_LINE, CONTENTS_CHAPTER_GAP = TOP + 50, 16.0, 6.0


def contents_pages(blocks: tuple[Block, ...]) -> int:
    """How many pages the contents need, known before layout so page numbers stay put."""
    levels = [b.level for b in blocks if isinstance(b, Heading) and b.level <= 2]
    height = len(levels) * CONTENTS_LINE + levels.count(1) * CONTENTS_CHAPTER_GAP
    return math.ceil(height / (BOTTOM - CONTENTS_TOP))


def draw_contents(writer: ManualWriter) -> None:
    """The table of contents on the reserved pages, with dotted leaders to page numbers."""
    page_index = 1
    writer.begin(writer.doc[page_index])
    writer.put(LEFT, TOP + 17, "Contents", "hebo", 17, ACCENT)
    writer.stroke([(LEFT, TOP + 25), (RIGHT, TOP + 25)], ACCENT, 1.2)
    y = CONTENTS_TOP
    for level, text, page in writer.headings:
        y += CONTENTS_CHAPTER_GAP if level == 1 else 0
        if y > BOTTOM:
            writer.end()
            page_index += 1
            writer.begin(writer.doc[page_index])
            y = CONTENTS_TOP
        draw_contents_line(writer, y, level, text, page)
        y += CONTENTS_LINE
    writer.end()


def draw_contents_line(writer: ManualWriter, y: float, level: int, text: str, page: int) -> None:
    """One contents entry: chapter in bold, sections indented, dots up to the page number."""
    font, size, x = ("hebo", 10.5, LEFT) if level == 1 else ("helv", 10.0, LEFT + 18)
    end = x + writer.put(x, y, text, font, size)
    number = str(page)
    number_x = RIGHT - text_width(number, font, size)
    dots = "." * int((number_x - end - 12) / text_width(".", "helv", size))
    writer.put(number_x - 6 - text_width(dots, "helv", size), y, dots, "helv", size, GREY)
    writer.put(number_x, y, number, font, size)


def draw_header_footer(writer: ManualWriter, number: int) -> None:
    """Running header (manual name, maker) and footer (document number, printed page)."""
    spec = writer.spec
    size = 8.5
    writer.put(LEFT, 44, f"Lumen AX-200 {spec.kind}", "hebo", size, GREY)
    maker = "Northlight Security"
    writer.put(RIGHT - text_width(maker, "helv", size), 44, maker, "helv", size, GREY)
    writer.stroke([(LEFT, 50), (RIGHT, 50)], GREY, 0.5)
    writer.stroke([(LEFT, PAGE.height - 48), (RIGHT, PAGE.height - 48)], GREY, 0.5)
    footer_y = PAGE.height - 36
    writer.put(LEFT, footer_y, f"{spec.doc_number}  ·  Version {spec.version}", "helv", size, GREY)
    printed = f"Page {number} of {writer.doc.page_count}"
    writer.put(RIGHT - text_width(printed, "hebo", size), footer_y, printed, "hebo", size, GREY)


# ---------------------------------------------------------------------------------------------
# Diagrams: a small canvas in figure coordinates (origin at the figure's top-left corner).
# ---------------------------------------------------------------------------------------------


class Canvas:
    """Drawing helpers for figures; all coordinates are relative to the figure box."""

    def __init__(self, writer: ManualWriter, x0: float, y0: float) -> None:
        self.writer, self.x0, self.y0 = writer, x0, y0

    def at(self, x: float, y: float) -> Pt:
        """Figure coordinates to page coordinates."""
        return (self.x0 + x, self.y0 + y)

    def line(self, *points: Pt, color: Color = INK, width: float = 0.9) -> None:
        """A wire or leader line through ``points``."""
        self.writer.stroke([self.at(*p) for p in points], color, width)

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        *,
        fill: Color | None = None,
        color: Color = INK,
        width: float = 0.9,
        radius: float | None = None,
    ) -> None:
        """A rectangle (a board, a device, a key)."""
        box = pymupdf.Rect(self.at(x0, y0), self.at(x1, y1))
        self.writer.frame(box, color, fill, width, radius)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        size: float = 7.0,
        bold: bool = False,
        align: str = "left",
        color: Color = INK,
        font: str | None = None,
    ) -> None:
        """A label with its baseline at ``y``; ``align`` is left, centre or right."""
        face = font or ("hebo" if bold else "helv")
        width = text_width(text, face, size)
        shift = {"left": 0.0, "centre": width / 2, "right": width}[align]
        self.writer.put(self.x0 + x - shift, self.y0 + y, text, face, size, color)

    def circle(
        self,
        x: float,
        y: float,
        r: float,
        *,
        fill: Color | None = None,
        color: Color = INK,
        width: float = 0.8,
    ) -> None:
        """A circle (an LED, a wire junction)."""
        shape = self.writer.shape
        assert shape is not None
        shape.draw_circle(self.at(x, y), r)
        shape.finish(color=color, fill=fill, width=width)

    def terminal(self, x: float, y: float, name: str, *, width: float = 26.0) -> None:
        """A screw terminal: a small box centred on (x, y) with its name inside."""
        self.rect(x - width / 2, y - 7, x + width / 2, y + 7, fill=(0.96, 0.96, 0.9), width=0.7)
        self.text(x, y + 2.4, name, size=6.2, bold=True, align="centre")

    def resistor(self, p1: Pt, p2: Pt, label: str, label_at: Pt) -> None:
        """A resistor drawn as a zigzag between two leads, with its value."""
        (x1, y1), (x2, y2) = p1, p2
        a = (x1 + (x2 - x1) * 0.25, y1 + (y2 - y1) * 0.25)
        b = (x1 + (x2 - x1) * 0.75, y1 + (y2 - y1) * 0.75)
        shape = self.writer.shape
        assert shape is not None
        self.line(p1, a)
        shape.draw_zigzag(self.at(*a), self.at(*b), 3.2)
        shape.finish(color=INK, width=0.9, closePath=False)
        self.line(b, p2)
        self.text(*label_at, label, size=7, bold=True, align="centre")

    def contact(self, x1: float, x2: float, y: float, label: str) -> None:
        """A normally closed contact between x1 and x2 on a horizontal wire at height y."""
        self.circle(x1, y, 1.6, fill=WHITE)
        self.circle(x2, y, 1.6, fill=WHITE)
        self.line((x1 + 1.6, y + 2.5), (x2 + 2, y + 2.5))
        self.line((x2, y + 1.6), (x2, y + 2.5))
        self.text((x1 + x2) / 2, y + 11, label, size=6.2, align="centre")

    def earth(self, x: float, y: float) -> None:
        """The earth symbol hanging below (x, y)."""
        self.line((x, y), (x, y + 8))
        for index, half in enumerate((8.0, 5.0, 2.0)):
            self.line((x - half, y + 8 + index * 3), (x + half, y + 8 + index * 3))

    def legend(self, x: float, y: float, lines: tuple[str, ...]) -> None:
        """A small block of text lines; the first one bold."""
        for index, line in enumerate(lines):
            self.text(x, y + index * 11, line, size=7.2, bold=index == 0)


BOARD_FILL: Color = (0.86, 0.93, 0.86)
DEVICE_FILL: Color = (0.95, 0.95, 0.97)
TB1 = ("AC", "AC", "EARTH", "AUX+", "AUX-", "BELL+", "BELL-", "KB+", "KB-", "A", "B")
TB2 = (
    "PGM1",
    "PGM2",
    "Z1",
    "COM",
    "Z2",
    "Z3",
    "COM",
    "Z4",
    "Z5",
    "COM",
    "Z6",
    "Z7",
    "COM",
    "Z8",
    "TMP",
    "TIP",
    "RING",
    "T-1",
    "R-1",
)
JUMPERS = (
    ("J1", "DEFAULT", 96.0),
    ("J2", "CHARGE", 142.0),
    ("J3", "PGM2 V", 188.0),
    ("J4", "TERM", 234.0),
    ("J5", "LOCK", 280.0),
)


def draw_board_layout(c: Canvas) -> None:
    """The AX-200 board seen from the front: terminal blocks, jumpers, sockets, LED."""
    c.rect(40, 10, 440, 250, fill=BOARD_FILL, width=1.1, radius=0.03)
    c.text(
        240, 88, "AX-200 MAIN BOARD  NLS-AX200-PCB", size=8, bold=True, align="centre", color=GREEN
    )
    c.text(50, 24, "TB1", size=7, bold=True)
    for index, name in enumerate(TB1):
        c.terminal(86 + index * 30, 24, name, width=28)
    c.text(50, 234, "TB2", size=7, bold=True)
    for index, name in enumerate(TB2):
        c.terminal(80.5 + index * 19.7, 226, name, width=19.2)
    for name, use, x in JUMPERS:
        c.rect(x, 112, x + 30, 122, fill=(0.2, 0.2, 0.2))
        for pin in range(3):
            c.circle(x + 5 + pin * 10, 117, 2, fill=(0.85, 0.75, 0.3), width=0.4)
        c.text(x + 15, 133, name, size=7, bold=True, align="centre")
        c.text(x + 15, 142, use, size=6, align="centre")
        c.text(x + 2, 109, "1", size=5.5)
    c.circle(70, 117, 4.5, fill=(0.3, 0.8, 0.3))
    c.text(70, 133, "STATUS", size=6.5, bold=True, align="centre")
    c.rect(110, 160, 170, 205, fill=(0.15, 0.15, 0.18))
    c.text(140, 186, "U1 CPU", size=7, bold=True, align="centre", color=WHITE)
    c.rect(330, 102, 430, 150, fill=(0.75, 0.75, 0.78))
    c.text(380, 122, "CN3", size=7, bold=True, align="centre")
    c.text(380, 132, "LX-4G socket", size=6.5, align="centre")
    c.rect(330, 162, 430, 200, fill=(0.9, 0.88, 0.8))
    c.text(380, 178, "Dialer and line", size=6.5, align="centre")
    c.text(380, 188, "surge protection", size=6.5, align="centre")
    c.line((40, 166), (0, 166), color=RED, width=2)
    c.line((40, 190), (0, 190), color=INK, width=2)
    c.text(0, 161, "BAT+ (red)", size=6.2, bold=True)
    c.text(0, 185, "BAT- (black)", size=6.2, bold=True)


def draw_loop_ends(c: Canvas, detector: str) -> None:
    """The panel's terminals on the left and a wired detector on the right, joined by wires."""
    c.rect(0, 10, 100, 140, fill=DEVICE_FILL)
    c.text(40, 24, "AX-200 panel", size=7.5, bold=True, align="centre")
    c.rect(150, 10, 350, 140, fill=DEVICE_FILL)
    c.text(250, 24, detector, size=7.5, bold=True, align="centre")
    wires = (
        ("AUX+", "+12V", 40.0, RED),
        ("AUX-", "0V", 58.0, INK),
        ("Z1", "ALM", 90.0, INK),
        ("COM", "ALM", 115.0, INK),
    )
    for panel_name, device_name, y, color in wires:
        c.terminal(86, y, panel_name)
        c.terminal(164, y, device_name)
        c.line((99, y), (151, y), color=color, width=1.3)
    c.text(125, 36, "red", size=6, align="centre", color=RED)
    c.text(125, 86, "zone loop", size=6, align="centre")


def draw_seol(c: Canvas) -> None:
    """Zone 1 as a single end-of-line loop: NC alarm contact in series with 2.2 kΩ."""
    draw_loop_ends(c, "Wired PIR detector (last device on zone 1)")
    c.line((177, 90), (215, 90))
    c.contact(215, 255, 90, "Alarm contact (NC)")
    c.line((255, 90), (330, 90), (330, 115))
    c.resistor((330, 115), (200, 115), "2.2 kΩ EOL resistor", (265, 131))
    c.line((200, 115), (177, 115))
    c.legend(
        364,
        50,
        (
            "SEOL loop at the panel:",
            "Normal: 2.2 kΩ",
            "Alarm: open circuit",
            "Tamper: short (0 Ω)",
            "Fit the resistor inside",
            "the last detector.",
        ),
    )


def draw_deol(c: Canvas) -> None:
    """Zone 1 as a double end-of-line loop: alarm resistor across the contact, tamper, EOL."""
    draw_loop_ends(c, "Wired PIR detector (last device on zone 1)")
    c.line((177, 90), (195, 90))
    c.contact(195, 230, 90, "Alarm (NC)")
    c.line((195, 90), (195, 70))
    c.line((230, 90), (230, 70))
    c.resistor((195, 70), (230, 70), "2.2 kΩ alarm", (212, 62))
    c.line((230, 90), (255, 90))
    c.contact(255, 290, 90, "Tamper (NC)")
    c.line((290, 90), (330, 90), (330, 115))
    c.resistor((330, 115), (200, 115), "2.2 kΩ EOL resistor", (265, 131))
    c.line((200, 115), (177, 115))
    c.legend(
        364,
        50,
        (
            "DEOL loop at the panel:",
            "Normal: 2.2 kΩ",
            "Alarm: 4.4 kΩ",
            "Tamper: open circuit",
            "Fault: short (0 Ω)",
        ),
    )


def draw_power(c: Canvas) -> None:
    """Transformer, earth, battery and siren wired to the panel's power terminals."""
    c.rect(190, 10, 290, 215, fill=DEVICE_FILL)
    c.text(240, 120, "AX-200 panel", size=8, bold=True, align="centre")
    left = (("AC", 40.0), ("AC", 62.0), ("EARTH", 96.0), ("BAT+", 160.0), ("BAT-", 184.0))
    for name, y in left:
        c.terminal(206, y, name, width=30)
    for name, y in (("BELL+", 40.0), ("BELL-", 62.0)):
        c.terminal(274, y, name, width=30)
    c.rect(10, 22, 130, 80, fill=(0.93, 0.9, 0.84))
    c.legend(18, 38, ("TR-1640 transformer", "230 V AC primary", "16.5 V AC, 40 VA"))
    c.line((-2, 30), (10, 30), color=GREY)
    c.text(0, 16, "From 3 A fused spur", size=6.5, color=GREY)
    c.line((130, 40), (191, 40), width=1.3)
    c.line((130, 62), (191, 62), width=1.3)
    c.text(160, 36, "0.75 mm²", size=6, align="centre")
    c.line((191, 96), (150, 96))
    c.earth(150, 96)
    c.text(162, 112, "Earth, 1.5 mm²", size=6.5)
    c.rect(10, 145, 130, 200, fill=(0.88, 0.88, 0.9))
    c.legend(18, 162, ("BT-127 battery", "12 V 7 Ah", "sealed lead-acid"))
    c.line((130, 160), (191, 160), color=RED, width=1.8)
    c.line((130, 184), (191, 184), color=INK, width=1.8)
    c.text(160, 156, "red", size=6, align="centre", color=RED)
    c.text(160, 180, "black", size=6, align="centre")
    draw_siren(c)


POWER_NOTES = (
    "No siren fitted?",
    "Fit the 1 kΩ resistor",
    "across BELL+ and BELL-.",
    "",
    "Connect the battery first,",
    "then switch on the mains.",
)


def draw_siren(c: Canvas) -> None:
    """The siren on BELL+ and BELL- in the power figure, with the wiring notes under it."""
    c.rect(350, 22, 465, 80, fill=(0.96, 0.9, 0.9))
    c.legend(358, 38, ("Siren", "13.8 V DC", "1.0 A max"))
    c.line((289, 40), (351, 40), color=RED, width=1.3)
    c.line((289, 62), (351, 62), width=1.3)
    c.legend(305, 112, POWER_NOTES)


LED_ROW = (
    ("READY", GREEN),
    ("ARMED", RED),
    ("STAY", YELLOW),
    ("TROUBLE", YELLOW),
    ("AC", GREEN),
    ("MEMORY", RED),
    ("BYPASS", YELLOW),
)
KEY_GRID = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "✱", "0", "#")


def key(c: Canvas, x: float, y: float, w: float, label: str, fill: Color = WHITE) -> None:
    """One keypad key with its legend."""
    c.rect(x, y, x + w, y + 22, fill=fill, radius=0.25, width=0.8)
    size = 6.5 if len(label) > 2 else 10
    c.text(x + w / 2, y + 14.5, label, size=size, bold=True, align="centre")


def draw_keypad(c: Canvas) -> None:
    """The KP-20 keypad front: display, LEDs, keys, with callouts naming each group."""
    c.rect(120, 0, 350, 290, fill=(0.9, 0.91, 0.93), width=1.2, radius=0.06)
    c.text(235, 16, "NORTHLIGHT   KP-20", size=7.5, bold=True, align="centre", color=ACCENT)
    c.rect(140, 24, 330, 62, fill=(0.76, 0.86, 0.72))
    c.text(150, 40, "System Ready", size=10, font="cour")
    c.text(150, 55, "14/04 18:32", size=10, font="cour")
    for index, (name, color) in enumerate(LED_ROW):
        x = 148 + index * 29
        c.circle(x, 76, 3.5, fill=color)
        c.text(x, 89, name, size=4.8, bold=True, align="centre")
    for index, label in enumerate(KEY_GRID):
        key(c, 170 + (index % 3) * 36, 100 + (index // 3) * 30, 30, label)
    for index, label in enumerate(("F", "A", "P")):
        key(c, 134, 100 + index * 30, 24, label, fill=(0.98, 0.85, 0.85))
    for index, label in enumerate(("AWAY", "STAY", "CHIME")):
        key(c, 286, 100 + index * 30, 46, label, fill=(0.85, 0.9, 0.98))
    key(c, 286, 190, 21, "←")
    key(c, 311, 190, 21, "→")
    c.text(235, 240, "Hold F, A or P for 2 seconds", size=6.8, align="centre")
    c.text(235, 252, "for an emergency alarm", size=6.8, align="centre")
    callouts = (
        ("Display (2 × 16)", 30.0, 140.0, 40.0),
        ("Status LEDs", 80.0, 140.0, 76.0),
        ("Emergency keys", 130.0, 134.0, 130.0),
        ("Number keys, ✱ and #", 230.0, 170.0, 215.0),
    )
    for label, y, x_end, y_end in callouts:
        c.text(0, y + 2.5, label, size=7, bold=True)
        c.line((text_width(label, "hebo", 7) + 4, y), (x_end, y_end), color=GREY, width=0.6)
    for label, y, y_end in (("Function keys", 110.0, 111.0), ("Scroll keys", 200.0, 201.0)):
        c.text(380, y + 2.5, label, size=7, bold=True)
        c.line((376, y), (332, y_end), color=GREY, width=0.6)


# ---------------------------------------------------------------------------------------------
# Installation manual content.
# ---------------------------------------------------------------------------------------------

INSTALLATION_BLOCKS: tuple[Block, ...] = (
    Heading("1 Introduction"),
    Heading("1.1 About This Manual"),
    Para(
        "This manual explains how to install, wire, program and commission the Lumen AX-200 "
        "Hybrid Alarm Panel made by Northlight Security. It is written for trained alarm "
        "installers. End users should read the Lumen AX-200 User Manual (document "
        "NLS-AX200-UM), which describes daily operation from the KP-20 keypad."
    ),
    Para(
        "The information applies to AX-200 control boards (part NLS-AX200-PCB) with firmware "
        "version 2.4 or later. The firmware version is printed on the label of the main "
        "processor U1 and is shown on the keypad when you enter installer programming."
    ),
    Para(
        "Conventions: keypad keys are shown in bold, for example **✱ 8** means press the star "
        "key and then 8. Programming sections are shown as three-digit numbers in square "
        "brackets, for example [023]. Terminal names are printed exactly as they appear on the "
        "board, for example AUX+ or BELL-."
    ),
    Heading("1.2 Safety Instructions"),
    Items(
        (
            "Install the panel indoors, in a dry location, in accordance with local wiring "
            "regulations. The AX-200 is not suitable for outdoor or damp locations.",
            "Connect the mains supply to the TR-1640 transformer through an unswitched fused spur "
            "rated 3 A. Never connect mains voltage to any terminal of the control board.",
            "Disconnect both the mains supply and the standby battery before changing jumpers, "
            "adding modules or rewiring terminals.",
            "Connect the EARTH terminal to a good electrical earth with a 1.5 mm² green/yellow "
            "conductor. The earth protects the telephone line and bus circuits against surges.",
            "Use only sealed lead-acid batteries. Never short-circuit the battery leads: a charged "
            "7 Ah battery can deliver more than 100 A.",
            "Dispose of used batteries according to local recycling rules.",
        )
    ),
    Heading("1.3 System Overview"),
    Para(
        "The AX-200 is a hybrid control panel: it accepts wired zones on the main board and on "
        "ZX-8 zone expanders, and wireless devices through one RX-8 wireless transceiver. The "
        "panel supports up to 64 zones, 2 partitions, 32 user codes and a 500-event log. "
        "Alarms and troubles are reported by the built-in telephone dialer, or by the optional "
        "LX-4G cellular communicator."
    ),
    Table(
        "Compatible devices",
        "Model | Description | Maximum per system",
        (1, 3.6, 1.6),
        """
        KP-20 | LCD keypad, 2 × 16 characters, 7 status LEDs | 4
        ZX-8 | 8-zone wired expander on the KeyBus | 3
        RX-8 | Wireless transceiver, 868.3 MHz, for up to 32 wireless zones and 8 keyfobs | 1
        PX-12 | Wireless PIR motion detector, pet-immune up to 20 kg | 32 (as wireless zones)
        DC-3 | Wireless door/window contact | 32 (as wireless zones)
        KF-4 | Four-button wireless keyfob | 8
        LX-4G | Plug-in LTE cellular communicator | 1
        TR-1640 | Plug-in transformer, 230 V AC to 16.5 V AC, 40 VA | 1
        BT-127 | Standby battery, 12 V 7 Ah sealed lead-acid | 1
        """,
        anchor="devices_table",
    ),
    Heading("1.4 Package Contents"),
    Items(
        (
            "AX-200 control board (part NLS-AX200-PCB) fitted in the AX-ENC1 steel enclosure",
            "TR-1640 transformer",
            "8 × 2.2 kΩ end-of-line resistors (red-red-red bands)",
            "1 × 1 kΩ bell supervision resistor (brown-black-red bands)",
            "Battery leads, red and black, with 6.3 mm spade connectors",
            "TS-1 enclosure tamper switch and its bracket",
            "This installation manual and the user manual",
        )
    ),
    Heading("2 Planning and Mounting"),
    Heading("2.1 Choosing a Location"),
    Para(
        "Mount the enclosure in a secure, dry area inside the protected premises, within reach "
        "of an unswitched mains outlet or fused spur and of the incoming telephone line. A "
        "utility room or a cupboard covered by a motion detector is ideal. Keep the panel away "
        "from heat sources, fluorescent lights and equipment that produces strong electrical "
        "noise, such as motors, pumps and washing machines."
    ),
    Para(
        "The operating temperature range is -10 °C to +50 °C at up to 93 % relative humidity, "
        "non-condensing. Allow at least 50 mm of free space on each side of the enclosure for "
        "cable entry and for air circulation around the transformer and the battery."
    ),
    Heading("2.2 Mounting the Enclosure"),
    Items(
        (
            "Remove the enclosure lid by undoing the two captive screws at its bottom edge.",
            "Hold the enclosure against the wall at a height of about 1.5 m and mark the four "
            "mounting holes. The holes are on a 250 mm × 200 mm rectangle (width × height).",
            "Drill the holes and fit 6 mm wall plugs. Fix the enclosure with four 4 mm × 30 mm "
            "pan-head screws.",
            "Knock out the cable entries you need. Bring mains-side cables in through the "
            "right-hand entries and all low-voltage cables through the top and left-hand entries.",
            "Fit the TS-1 tamper switch to its bracket so that it is pressed when the lid is "
            "closed. Wire it to TMP and COM (see section 3.2).",
            "Stand the BT-127 battery on the floor of the enclosure, terminals facing forward. Do "
            "not connect it yet.",
        ),
        numbered=True,
    ),
    Note(
        "The enclosure tamper also detects removal from the wall when the rear tamper screw "
        "is fitted through the breakaway tab into a wall plug."
    ),
    Heading("2.3 Cable Types and Lengths"),
    Para(
        "Use the cables in the following table. The lengths are the maximum for reliable "
        "operation with the stated cable; longer runs need heavier conductors or a separate "
        "power supply near the devices."
    ),
    Table(
        "Recommended cables",
        "Circuit | Cable | Maximum length",
        (1.6, 2.4, 2.4),
        """
        Zone loops | 4-core alarm cable, 0.22 mm² (24 AWG) | 300 m (loop resistance 100 Ω max)
        KeyBus (KB+, KB-, A, B) | 4-core, A and B twisted together, 0.22 mm² | \
300 m for the whole bus; 150 m to the farthest keypad
        Siren and strobe | 2-core, 0.5 mm² | 50 m
        Transformer secondary (AC) | 2-core, 0.75 mm² | 3 m
        Telephone line | 2-core telephone cable | As required by the line provider
        Earth | 1.5 mm² green/yellow | 3 m
        """,
        anchor="cable_table",
    ),
    Para(
        "Do not run alarm cables in the same conduit as mains wiring. Where they must cross, "
        "cross at right angles, and keep at least 50 mm between alarm and mains cables on "
        "parallel runs."
    ),
    Heading("3 Board Layout and Connections"),
    Heading("3.1 Board Layout"),
    Para(
        "The figure below shows the AX-200 control board as mounted in the enclosure. Terminal "
        "block TB1 runs along the top edge, TB2 along the bottom edge. The five jumpers J1 to "
        "J5 are in a row in the centre of the board; pin 1 of each jumper is on the left."
    ),
    Figure("AX-200 control board layout", 262, draw_board_layout, anchor="board_fig"),
    Para(
        "The STATUS LED next to J1 shows the processor state: a slow green flash (once per "
        "second) means normal operation; a fast green flash means factory defaults are being "
        "loaded; steady red means a processor fault, and the board must be returned for "
        "service."
    ),
    Para(
        "Socket CN3 accepts the plug-in LX-4G cellular communicator. The RX-8 wireless "
        "transceiver and the ZX-8 zone expanders are not plugged into the board: they connect "
        "to the KeyBus terminals in the same way as a keypad."
    ),
    Heading("3.2 Terminal Block"),
    Para(
        "TB1 carries the power, siren and KeyBus connections; TB2 carries the outputs, zones, "
        "tamper and telephone line. All terminals accept conductors from 0.2 mm² to 1.5 mm²."
    ),
    Table(
        "Terminal functions",
        "Terminal | Function | Rating",
        (1.1, 2.9, 2.4),
        """
        AC, AC | Transformer input (TR-1640 secondary), no polarity | 16.5 V AC, 40 VA
        EARTH | Earth ground for surge protection | 1.5 mm² to electrical earth
        AUX+ | Auxiliary power out | 13.8 V DC, 500 mA max
        AUX- | Auxiliary power negative (common) | -
        BELL+ | Siren output, positive | 13.8 V DC, 1.0 A max, PTC protected
        BELL- | Siren output, negative (switched) | Fit 1 kΩ across BELL+ and BELL- if unused
        KB+ | KeyBus power to keypads and modules | 13.8 V DC, shares the AUX 500 mA limit
        KB- | KeyBus negative (common) | -
        A | KeyBus data line A (RS-485) | Twist with B
        B | KeyBus data line B (RS-485) | Twist with A
        PGM1 | Programmable output, open collector, switches to negative | \
100 mA max, 30 V DC max
        PGM2 | Programmable output, voltage output selected by J3 | 12 V or 5 V, 50 mA max
        Z1 to Z8 | Zone inputs 1 to 8 | 2.2 kΩ EOL, 100 Ω max wiring
        COM | Zone common, one COM for every two zones | -
        TMP | Enclosure tamper input, wired to COM | Normally closed
        TIP, RING | Incoming telephone line | Analogue PSTN line
        T-1, R-1 | House telephones, disconnected while the panel reports | -
        """,
        anchor="terminal_table",
    ),
    Note(
        "AUX+ and KB+ share one self-resetting fuse (PTC). If their total current exceeds "
        "500 mA, both outputs switch off, the keypads show an AUX trouble, and power returns "
        "automatically about 30 seconds after the overload is removed.",
        anchor="ptc_note",
    ),
    Heading("3.3 Jumper Settings"),
    Para(
        "Jumpers select hardware options. Change jumpers only with the mains and the battery "
        "disconnected: the panel reads them at power-up."
    ),
    Table(
        "Jumper settings",
        "Jumper | Function | Settings",
        (0.8, 1.9, 3.7),
        """
        J1 | Factory default (DEFAULT) | Open: normal operation (factory setting). Fitted at \
power-up: restore factory defaults, see section 8.3
        J2 | Battery charge current | 1-2: 350 mA for a 7 Ah battery (factory setting); \
2-3: 700 mA for a 12 Ah to 18 Ah battery
        J3 | PGM output voltage (PGM2) | 1-2: 12 V (factory setting); 2-3: 5 V
        J4 | KeyBus termination (120 Ω) | Fitted: bus terminated at the panel (factory \
setting); open: not terminated
        J5 | Installer lock | Open: installer programming from a keypad allowed (factory \
setting); fitted: keypad installer programming and software reset disabled
        """,
        anchor="jumper_table",
    ),
    Para(
        "Leave J4 fitted when the panel is at one end of the KeyBus, which is the usual case. "
        "If the panel is in the middle of the bus, remove J4 and terminate the two farthest "
        "devices instead. KP-20 keypads have their own termination jumper, marked TERM."
    ),
    Heading("4 Wiring"),
    Heading("4.1 Zone Wiring"),
    Para(
        "Each zone input (Z1 to Z8) is wired as a loop between the zone terminal and a COM "
        "terminal. The loop type is set for the whole panel in section [013]: NC (no resistor), "
        "SEOL (single end-of-line, the factory setting) or DEOL (double end-of-line). Always "
        "fit the end-of-line resistor inside the last detector on the loop, never at the panel, "
        "so that a cut or shorted cable is detected."
    ),
    Table(
        "Zone loop resistance seen by the panel",
        "Loop type | Normal | Alarm | Tamper | Fault",
        (1.3, 1, 1, 1, 1),
        """
        NC | Closed (0 Ω) | Open | Not detected | Not detected
        SEOL (factory setting) | 2.2 kΩ | Open | Short (0 Ω) | Not detected
        DEOL | 2.2 kΩ | 4.4 kΩ | Open | Short (0 Ω)
        """,
        anchor="loop_table",
    ),
    Figure("Single end-of-line (SEOL) wiring of zone 1", 145, draw_seol, anchor="seol_fig"),
    Figure("Double end-of-line (DEOL) wiring of zone 1", 145, draw_deol, anchor="deol_fig"),
    Para(
        "Fire zones (zone type 08) always use SEOL wiring with a 2.2 kΩ resistor, whatever is "
        "set in [013]. Power four-wire smoke detectors from AUX+ through PGM1 programmed as "
        "output type 05 (sensor reset), which removes their supply for 5 seconds when a fire "
        "alarm is cleared so the detectors latch off."
    ),
    Heading("4.2 KeyBus Wiring"),
    Para(
        "Keypads, the RX-8 wireless transceiver and ZX-8 zone expanders connect in parallel "
        "to the four KeyBus terminals. On every device connect KB+ to the red wire, KB- to "
        "black, A to green and B to yellow. Daisy-chain wiring gives the most reliable "
        "communication; star wiring is allowed with up to four branches."
    ),
    Para(
        "Every device needs its own address. Set KP-20 keypads to addresses 1 to 4 in the "
        "keypad setup menu (hold ✱ and # together for 5 seconds after power-up). Set ZX-8 "
        "expanders to addresses 1 to 3 with their DIP switches: expander 1 provides zones 9-16, "
        "expander 2 zones 17-24 and expander 3 zones 25-32. The RX-8 always uses zones 33-64 "
        "for wireless devices.",
        anchor="keybus_addresses",
    ),
    Para(
        "After wiring new devices, enter installer programming and run section [902] (module "
        "enrolment) so that the panel supervises them. A device that stops answering for 60 "
        "seconds causes a Module Supervision trouble, reported with Contact ID code 333."
    ),
    Heading("4.3 Siren and Strobe"),
    Para(
        "Connect a self-powered or panel-powered siren to BELL+ and BELL-. The bell output "
        "delivers 13.8 V DC at up to 1.0 A and is protected by a self-resetting PTC fuse. The "
        "bell circuit is supervised: if no siren is connected, fit the 1 kΩ resistor supplied "
        "across BELL+ and BELL-, otherwise the panel shows a Bell Circuit trouble."
    ),
    Para(
        "Burglary alarms give a steady output; fire alarms give a pulsed output (three pulses "
        "of 0.5 s on and 0.5 s off, then 1.5 s off). The siren stops after the bell cut-off "
        "time, 4 minutes by default, set in section [023]. A strobe can be driven from PGM1 "
        "programmed as output type 01, which stays on until the panel is disarmed."
    ),
    Heading("4.4 Telephone Line"),
    Para(
        "Connect the incoming line to TIP and RING, and the house telephones to T-1 and R-1, "
        "so that the panel can seize the line when it reports. The dialer checks the line "
        "voltage every 10 seconds; if it stays below 3 V DC for 60 seconds, the panel shows a "
        "Telephone Line trouble. Do not connect the dialer to a digital (ISDN) or VoIP port "
        "without an analogue telephone adapter."
    ),
    Heading("4.5 Programmable Outputs"),
    Para(
        "PGM1 is an open-collector transistor output that switches to negative when active. "
        "Connect the load between AUX+ and PGM1, up to 100 mA. Use an external relay with a "
        "flyback diode for larger loads."
    ),
    Para(
        "PGM2 is a voltage output. Jumper J3 selects 12 V (pins 1-2, factory setting) or 5 V "
        "(pins 2-3), at up to 50 mA. Use the 5 V setting for the logic inputs of video "
        "recorders and building management controllers. The output type of PGM1 is set in "
        "section [041] and that of PGM2 in [042]."
    ),
    Table(
        "PGM output types",
        "Type | Name | Operation",
        (0.6, 1.6, 4.2),
        """
        00 | Disabled | The output never activates (factory setting for PGM2)
        01 | Strobe | Activates on any alarm and stays on until disarm (factory setting for PGM1)
        02 | Armed status | Active while the partition is armed
        03 | Ready status | Active while the READY LED is on
        04 | Keypad command | Toggled by a user with ✱ 7 (see the user manual)
        05 | Sensor reset | Normally active; off for 5 seconds when a fire alarm is cleared
        06 | Trouble output | Active while any trouble is present
        07 | Follows bell | Active while the bell output is on
        """,
        anchor="pgm_table",
    ),
    Heading("5 Power Supply and Battery"),
    Heading("5.1 Mains Transformer"),
    Para(
        "The AX-200 is powered by the TR-1640 plug-in transformer: primary 230 V AC ±10 %, "
        "50 Hz; secondary 16.5 V AC, 40 VA. Connect the secondary to the two AC terminals with "
        "0.75 mm² cable no longer than 3 m; polarity does not matter. Do not use a transformer "
        "rated below 40 VA: the panel could not charge the battery and supply the full "
        "auxiliary load at the same time."
    ),
    Para(
        "When mains power fails, the panel switches to the battery without interruption. The "
        "keypads show the AC trouble at once, but the panel reports it to the monitoring "
        "station only after the AC loss report delay, 30 minutes by default, set in section "
        "[024]. This avoids reports for short power cuts.",
        anchor="ac_delay_text",
    ),
    Figure(
        "Power wiring: transformer, earth, battery and siren", 218, draw_power, anchor="power_fig"
    ),
    Heading("5.2 Standby Battery"),
    Para(
        "Use a 12 V sealed lead-acid (SLA) battery. The standard battery is the BT-127, "
        "12 V 7 Ah, which fits inside the AX-ENC1 enclosure. Batteries of 12 Ah to 18 Ah need "
        "the larger AX-ENC2 enclosure and jumper J2 on pins 2-3 (700 mA charge current)."
    ),
    Table(
        "Battery characteristics",
        "Parameter | Value",
        (2.2, 4.2),
        """
        Battery type | 12 V sealed lead-acid (SLA); BT-127 recommended
        Capacity | 7 Ah standard; 18 Ah maximum
        Charging voltage | 13.8 V DC (float charge)
        Charging current | 350 mA (J2 on 1-2) or 700 mA (J2 on 2-3)
        Recharge time | 24 h to 80 % of capacity (7 Ah battery at 350 mA)
        Low battery trouble | Below 11.4 V; restores above 12.4 V
        Deep discharge cut-off | 10.2 V: the load is disconnected to protect the battery
        Dynamic battery test | Every 4 hours and at each arming: 10-second load test
        """,
        anchor="battery_table",
    ),
    Para(
        "Connect the red lead to the battery's positive (+) terminal and the black lead to the "
        "negative (-) terminal. Connect the battery before the mains supply: the panel does not "
        "start on battery power alone until mains power has been applied once (kick-start "
        "protection)."
    ),
    Heading("5.3 Current Budget and Standby Time"),
    Para(
        "Add up the standby current of the panel and of every device powered from AUX+, KB+ "
        "and PGM2; AUX+ and KB+ together must not exceed 500 mA. The standby time is: standby "
        "hours = battery capacity (Ah) × 0.85 ÷ total current (A). The factor 0.85 allows for "
        "battery ageing."
    ),
    Table(
        "Current consumption",
        "Device | Standby current | Alarm current",
        (3, 1.5, 1.5),
        """
        AX-200 control board | 95 mA | 140 mA
        KP-20 keypad | 45 mA | 65 mA
        ZX-8 zone expander | 30 mA | 30 mA
        RX-8 wireless transceiver | 40 mA | 40 mA
        LX-4G cellular communicator | 35 mA | 180 mA while transmitting
        Wired PIR detector (typical) | 12 mA | 15 mA
        """,
        anchor="current_table",
    ),
    Table(
        "Standby time with a fully charged battery",
        "Total standby current | 7 Ah battery | 18 Ah battery",
        (2, 1.5, 1.5),
        """
        200 mA | 29.7 h | 76.5 h
        300 mA | 19.8 h | 51.0 h
        500 mA | 11.9 h | 30.6 h
        700 mA | 8.5 h | 21.9 h
        """,
        anchor="standby_table",
    ),
    Para(
        "Example: the panel (95 mA) with two KP-20 keypads (90 mA) and one RX-8 (40 mA) draws "
        "225 mA, so a 7 Ah battery gives about 26.4 hours. Where 24 hours of standby are "
        "required, keep the total standby current below 245 mA with a 7 Ah battery."
    ),
    Heading("6 Programming"),
    Heading("6.1 Entering Installer Programming"),
    Items(
        (
            "Make sure the system is disarmed.",
            "Press **✱ 8**, then enter the installer code. The factory default installer code is "
            "**5190**.",
            'The keypad shows "Installer Prog" and "Enter Section". The TROUBLE LED flashes '
            "while the panel is in installer programming.",
            "Enter a three-digit section number, for example 023, then the data. The keypad gives "
            "two short beeps when the data is saved.",
            "Press **#** to leave a section. Press **#** again to leave installer programming.",
        ),
        numbered=True,
        anchor="enter_programming",
    ),
    Para(
        "If no key is pressed for 5 minutes, the panel leaves installer programming by itself. "
        "Entering and leaving installer programming are logged and reported (Contact ID 627 "
        "and 628). Installer programming cannot be entered from a keypad while J5 is fitted."
    ),
    Table(
        "Main programming sections",
        "Section | Description | Factory setting",
        (1, 3, 2.6),
        """
        [005] | Installer code | 5190
        [006] | Master code (user code 01) | 1234
        [010] | Code length | 4 digits (4 or 6)
        [013] | Zone loop type | SEOL
        [020] to [028] | System timers, see section 6.3 | See section 6.3
        [101] to [164] | Zone 1 to zone 64: type and attributes | \
Zone 1: 01; zones 2-8: 04; others: 00
        [301], [302] | Receiver 1 and receiver 2 telephone numbers | Empty
        [310] | Account number | 0000
        [350] | Reporting format | 1 (Contact ID)
        [902] | Module enrolment | -
        [903] | Walk test | -
        [989] | Restore factory defaults (software reset) | -
        """,
        anchor="sections_table",
    ),
    Heading("6.2 Zone Programming"),
    Para(
        "Each zone is programmed in its own section: [101] for zone 1 up to [164] for zone 64. "
        "Enter the two-digit zone type, then toggle the attributes with keys 1 to 6: 1 = "
        "audible, 2 = chime, 3 = bypass allowed, 4 = force arm, 5 = swinger shutdown, 6 = fast "
        "response (50 ms instead of 500 ms)."
    ),
    Table(
        "Zone types",
        "Type | Name | Operation",
        (0.6, 1.8, 4.0),
        """
        00 | Null | Zone not used
        01 | Delay 1 | Starts entry delay 1 (30 s by default) when armed
        02 | Delay 2 | Starts entry delay 2 (45 s by default) when armed
        03 | Instant | Immediate alarm when armed
        04 | Interior follower | Delayed while an entry delay is running, otherwise instant
        05 | Stay/Away interior | As type 04, and bypassed automatically when armed Stay
        06 | 24-hour burglary | Alarm at any time, armed or disarmed
        07 | 24-hour panic | Alarm at any time; silent when attribute 1 (audible) is off
        08 | 24-hour fire | Pulsed siren; always SEOL; cannot be bypassed
        09 | 24-hour tamper | Tamper alarm at any time
        10 | Key switch arm | A momentary key switch arms and disarms the partition
        """,
        anchor="zone_types",
    ),
    Heading("6.3 System Timers"),
    Table(
        "System timers",
        "Section | Timer | Factory setting | Range",
        (1, 2.6, 1.5, 2.2),
        """
        [020] | Exit delay | 60 s | 10-255 s
        [021] | Entry delay 1 | 30 s | 10-255 s
        [022] | Entry delay 2 | 45 s | 10-255 s
        [023] | Bell cut-off time | 4 min | 1-30 min
        [024] | AC loss report delay | 30 min | 0-255 min
        [025] | Alarm abort window | 30 s | 0-60 s (0 = off)
        [026] | Swinger shutdown limit | 3 trips | 1-15 trips per armed period
        [027] | Periodic test report interval | 24 h | 1-720 h (0 = off)
        [028] | Time of the first test report | 02:00 | 00:00-23:59
        """,
        anchor="timers_table",
    ),
    Para(
        "During the alarm abort window the panel holds back the report of a burglary alarm. If "
        "a valid code disarms the system within the window, no alarm is reported. If the code "
        "is entered after the report has gone but within 5 minutes of the alarm, the panel "
        "sends a Cancel report (Contact ID 406). Fire, panic and duress alarms are always "
        "reported at once.",
        anchor="abort_text",
    ),
    Heading("7 Communicator and Reporting"),
    Heading("7.1 Reporting Setup"),
    Para(
        "The built-in dialer reports to up to two receivers at the monitoring station. Program "
        "the receiver telephone numbers in [301] and [302] (up to 20 digits; press ✱ to insert "
        "a 2-second pause), the four-digit account number in [310] and the reporting format in "
        "[350]: 1 = Contact ID (factory setting), 2 = SIA level 2."
    ),
    Para(
        "The panel makes up to 5 dialling attempts to receiver 1, then up to 5 attempts to "
        "receiver 2. If all attempts fail, the keypads show a Failure to Communicate trouble "
        "and the events stay in the buffer; they are sent, with code 354, on the next "
        "successful call."
    ),
    Para(
        "With the LX-4G module fitted, the panel reports over the cellular network in SIA "
        "DC-09 format to the IP receiver programmed in [320] (IP address and port). The "
        "telephone dialer then acts as backup when [321] is set to 1. The LX-4G sends a "
        "supervision heartbeat to the receiver every 90 seconds."
    ),
    Heading("7.2 Contact ID Event Codes"),
    Para(
        "In Contact ID format each report holds the account number, an event qualifier (1 = "
        "new event or opening, 3 = restore or closing), the three-digit event code, the "
        "partition and the zone or user number. The AX-200 sends the following event codes."
    ),
    Table(
        "Contact ID event codes",
        "Code | Event | Zone or user field",
        (0.7, 3.8, 1.9),
        """
        100 | Medical alarm (keypad A key) | 000
        110 | Fire alarm (fire zone or keypad F key) | Zone number, 000 for the keypad
        120 | Panic alarm (panic zone or keypad P key) | Zone number, 000 for the keypad
        121 | Duress (user code 30) | User number
        130 | Burglary alarm | Zone number
        137 | Enclosure tamper (TMP input) | 000
        144 | Zone tamper | Zone number
        301 | AC power loss (after the AC loss report delay) | 000
        302 | Low system battery | 000
        309 | Battery test failure | 000
        321 | Bell circuit trouble | 000
        333 | Module supervision (KeyBus device missing) | Module address
        351 | Telephone line fault | 000
        354 | Failure to communicate (sent on the next call) | 000
        380 | Zone fault (DEOL loop short) | Zone number
        381 | Loss of wireless supervision | Zone number
        384 | Wireless device low battery | Zone number
        401 | Opening or closing by a user (disarm or arm) | User number
        406 | Cancel (alarm cancelled by a user) | User number
        461 | Wrong code entry (keypad lockout) | 000
        570 | Zone bypass | Zone number
        602 | Periodic test report | 000
        627 | Installer programming entered | 000
        628 | Installer programming left | 000
        """,
        anchor="cid_table",
    ),
    Para(
        "Example: the report 1234 18 1 301 01 000 means account 1234, Contact ID message type "
        "18, new event (1), AC power loss (301), partition 01, no zone (000). When mains power "
        "returns, the panel sends the same code with qualifier 3: 1234 18 3 301 01 000."
    ),
    Heading("8 Commissioning and Troubleshooting"),
    Heading("8.1 Power-Up and Commissioning"),
    Items(
        (
            "Check the wiring against section 3.2. With each loop disconnected from the panel, "
            "check that it measures 2.2 kΩ with the detectors closed.",
            "Connect the battery leads: red to +, black to -.",
            "Switch on the mains supply to the TR-1640. The STATUS LED flashes green once per "
            'second and the keypads show "System Ready" or the open zones.',
            "Enter installer programming (**✱ 8** and the installer code) and enrol the modules in "
            "[902]. Program the zones, the timers and the reporting options.",
            "Change the installer code in [005], and ask the customer to change the master code "
            "(factory setting 1234).",
            "Run a walk test in [903]: each zone opened makes the keypad beep and appears on the "
            "display, and no alarms are reported. Press # to end the walk test.",
            "Test the communicator: tell the monitoring station, then trigger a test alarm, or "
            "send a manual test report from section [904].",
            "Leave installer programming and show the customer how to arm, disarm and read "
            "troubles.",
        ),
        numbered=True,
    ),
    Heading("8.2 Troubleshooting"),
    Table(
        "Troubleshooting",
        "Symptom | Probable cause | Remedy",
        (2, 2.3, 2.7),
        """
        Keypads blank, STATUS LED off | No power: transformer unplugged, or battery below 10.2 V \
| Check 16.5 V AC on the AC terminals; charge or replace the battery
        Keypad shows \"Bus Fault\" | A and B swapped, or KeyBus not terminated | \
Check the red/black/green/yellow wiring; fit J4 at the panel and TERM on the farthest keypad
        Zone always shows open | Wrong or missing EOL resistor, broken cable | \
Measure the loop: 2.2 kΩ normal; check that [013] matches the wiring
        DEOL zone shows a fault | Short circuit on the loop | \
Look for a trapped cable or a screw through it; the loop must not measure 0 Ω
        Bell Circuit trouble | No siren and no 1 kΩ resistor on BELL+ and BELL- | \
Connect the siren or fit the 1 kΩ resistor
        AUX trouble, detectors without power | AUX+ and KB+ above 500 mA; PTC fuse tripped | \
Reduce the load or add a separate power supply; power returns about 30 s after the overload
        Low Battery trouble after installation | Battery not yet charged, or J2 set wrongly | \
Allow 24 hours of charging; check J2 (1-2 for a 7 Ah battery)
        Failure to Communicate | No dial tone, wrong receiver number or account number | \
Check TIP and RING, the numbers in [301] and [302] and the account in [310]
        Telephone Line trouble | Line voltage below 3 V for 60 seconds | \
Check the incoming line and its connection to TIP and RING
        Cannot enter installer programming | J5 fitted, or installer code changed and lost | \
Remove J5; if the code is lost, restore factory defaults (section 8.3)
        """,
        anchor="im_trouble",
    ),
    Heading("8.3 Factory Reset"),
    Para(
        "A factory reset returns all programming to the factory settings given in this manual, "
        "including the installer code (5190) and the master code (1234). All other user codes "
        "are deleted. The event log, the time and the date are kept. Use the hardware reset "
        "when the installer code is unknown.",
        anchor="reset_text",
    ),
    Heading("Hardware reset with jumper J1"),
    Items(
        (
            "Disconnect the mains supply, then disconnect the battery.",
            "Fit a jumper on J1 (marked DEFAULT).",
            "Reconnect the battery, then the mains supply. The STATUS LED flashes green rapidly "
            "while the factory settings are loaded.",
            "Wait until the STATUS LED returns to a slow flash, about 15 seconds.",
            'Remove the jumper from J1. The keypads show "Defaults Loaded".',
            "Enrol the modules again in [902] and re-program the panel.",
        ),
        numbered=True,
        anchor="reset_steps",
    ),
    Heading("Software reset in section [989]"),
    Para(
        "In installer programming, enter section [989], enter the installer code again and "
        "press #. The panel restarts with factory settings. The software reset is not possible "
        "while J5 is fitted."
    ),
    Note(
        "If J1 is left fitted, the panel restores the factory settings at every power-up. "
        "Always remove the jumper at step 5.",
        label="CAUTION",
    ),
    Heading("9 Specifications"),
    Table(
        "Technical specifications",
        "Parameter | Value",
        (2.2, 4.2),
        """
        Model | Lumen AX-200 Hybrid Alarm Panel (control board NLS-AX200-PCB)
        Firmware | Version 2.4
        Mains supply | 230 V AC ±10 %, 50 Hz, through the TR-1640 transformer
        Transformer | 16.5 V AC secondary, 40 VA
        Panel current | 95 mA standby, 140 mA in alarm
        Auxiliary output (AUX+ and KB+) | 13.8 V DC, 500 mA max combined
        Bell output | 13.8 V DC, 1.0 A max, supervised
        Programmable outputs | PGM1: open collector, 100 mA; PGM2: 12 V or 5 V, 50 mA
        Standby battery | 12 V 7 Ah SLA (BT-127); up to 18 Ah in the AX-ENC2 enclosure
        Zones | 8 on the board; up to 64 in total (24 wired on 3 ZX-8, 32 wireless on RX-8)
        Partitions | 2
        User codes | 32 (master, 28 standard, duress, arm-only, one-time)
        Keypads | Up to 4 KP-20
        Event log | 500 events with date and time
        Communicator | Built-in PSTN dialer (Contact ID, SIA level 2); LX-4G cellular \
(SIA DC-09) optional
        Wireless | 868.3 MHz through the RX-8: up to 32 zones and 8 KF-4 keyfobs
        Zone response time | 500 ms (50 ms with the fast response attribute)
        Operating environment | -10 °C to +50 °C, up to 93 % RH, non-condensing
        Board dimensions | 160 × 110 mm
        Enclosure AX-ENC1 | 290 × 300 × 85 mm, 1.0 mm steel, 2.9 kg without battery
        Security grade | Grade 2, environmental class II
        """,
        anchor="spec_table",
    ),
)


# ---------------------------------------------------------------------------------------------
# User manual content.
# ---------------------------------------------------------------------------------------------

USER_BLOCKS: tuple[Block, ...] = (
    Heading("1 Introduction"),
    Heading("1.1 About Your Alarm System"),
    Para(
        "Your premises are protected by a Lumen AX-200 Hybrid Alarm Panel from Northlight "
        "Security. The control panel itself is installed out of sight, usually in a cupboard or "
        "utility room; you operate the system from one or more KP-20 keypads and, if supplied, "
        "from KF-4 wireless keyfobs. The detectors on doors, windows and in rooms are grouped "
        "into numbered zones. When the system is armed and a zone is triggered, the panel "
        "sounds the sirens and, if your system is monitored, reports the alarm to the "
        "monitoring station."
    ),
    Para(
        "This manual explains everyday use: arming and disarming, user codes, bypassing zones, "
        "the door chime, the alarm memory, the event log and what to do when the keypad shows "
        "a trouble. Programming the panel is done by your installer and is described in the "
        "Lumen AX-200 Installation Manual (document NLS-AX200-IM)."
    ),
    Heading("1.2 Conventions"),
    Para(
        "Keys are printed in bold: **✱ 4** means press the star key, then the 4 key. [code] "
        "means enter your four-digit user code. Display messages are shown in quotation marks, "
        'for example "System Ready". The factory timings given in this manual (exit delay '
        "60 seconds, entry delay 30 seconds, siren time 4 minutes) may have been changed by "
        "your installer."
    ),
    Heading("1.3 Quick Reference"),
    Table(
        "Common tasks",
        "Task | Keys",
        (2.2, 4.2),
        """
        Arm Away (everybody leaves) | [code], then AWAY
        Arm Stay (people stay inside) | [code], then STAY
        Arm Stay without entry delay | ✱ 9, then [code]
        Disarm | [code]
        Bypass a zone | ✱ 1, [code], two-digit zone number, #
        View troubles | ✱ 2
        View alarm memory | ✱ 3
        Door chime on or off | CHIME, or ✱ 4
        Program user codes | ✱ 5, master code
        User functions (time and date, event log, test) | ✱ 6, master code
        Output control (for example a garage door) | ✱ 7, [code], output number
        Emergency alarm | Hold F, A or P for 2 seconds
        """,
        anchor="quick_table",
    ),
    Heading("1.4 Safety Information"),
    Items(
        (
            "Test your system every week (see section 9.1). An alarm system warns of an emergency; "
            "it cannot prevent one.",
            "Do not open the control panel enclosure. It contains mains wiring and a battery, and "
            "opening the lid causes a tamper alarm.",
            "Keep your user code secret. Never write it on or near the keypad.",
            "Make sure everybody who uses the system knows how to disarm it and how to cancel a "
            "false alarm (section 4.2).",
        )
    ),
    Heading("1.5 System Components"),
    Para(
        "Your system may include the following Northlight devices. Your installer can tell you "
        "which ones are fitted and where."
    ),
    Items(
        (
            "**KP-20 keypad:** the keypad described in chapter 2. Up to four keypads can be "
            "fitted, for example one by the front door and one in the bedroom.",
            "**KF-4 keyfob:** a four-button wireless remote control for arming and disarming "
            "(section 3.7).",
            "**PX-12 motion detector:** a wireless passive infrared detector that senses body heat "
            "moving in a room. It ignores pets up to 20 kg when mounted at a height of 2.2 m.",
            "**DC-3 door/window contact:** a wireless magnetic contact that detects a door or "
            "window opening.",
            "**Sirens:** an outdoor siren with a strobe light, and often an indoor siren. The "
            "strobe keeps flashing after the siren stops, until the system is disarmed, so that "
            "the police can find the premises in alarm.",
            "**LX-4G communicator:** an optional mobile-network module that reports alarms to the "
            "monitoring station when the telephone line is cut or not available.",
        )
    ),
    Heading("2 Your Keypad"),
    Heading("2.1 KP-20 Keypad at a Glance"),
    Para(
        "The KP-20 keypad has a two-line, 16-character backlit display, seven status LEDs, a "
        "numeric keypad with the ✱ (star) and # (hash) keys, three function keys (AWAY, STAY "
        "and CHIME), two scroll keys (← and →) and three emergency keys (F, A and P) on the "
        "left side."
    ),
    Figure("KP-20 keypad", 292, draw_keypad, anchor="keypad_fig"),
    Heading("2.2 Keys"),
    Table(
        "Keypad keys",
        "Key | Name | Function",
        (0.8, 1.7, 4.0),
        """
        0 to 9 | Number keys | Enter codes, zone numbers and menu choices
        ✱ | Star (function) key | Starts a function: ✱ followed by a number opens a menu (✱ 1 \
to ✱ 9). In a menu, ✱ toggles or deletes the item shown
        # | Hash (enter/exit) key | Confirms an entry; pressed on its own, leaves the current \
menu and returns to the normal display
        ← → | Scroll keys | Scroll through lists: open zones, troubles, alarm memory, event log
        AWAY | Away arm key | After a code, arms all zones with the exit delay
        STAY | Stay arm key | After a code, arms the doors and windows only; interior zones \
are bypassed
        CHIME | Chime key | Switches the door chime on or off (same as ✱ 4)
        F | Fire key | Hold 2 seconds: fire alarm with pulsed siren
        A | Auxiliary (medical) key | Hold 2 seconds: medical alarm; keypad beeps, no siren
        P | Panic key | Hold 2 seconds: panic alarm; siren, or silent if your installer set it
        """,
        anchor="keys_table",
    ),
    Heading("2.3 Status LEDs"),
    Para(
        "The seven LEDs above the keys show the state of the system at a glance. An LED that "
        "is not listed for a state is off."
    ),
    Table(
        "Status LEDs",
        "LED | Colour | State | Meaning",
        (1.1, 0.9, 1.0, 3.8),
        """
        READY | Green | On | Ready to arm: all zones are closed
        READY | Green | Flashing | Zones are open, but they are force-arm zones: you can still \
arm, and they are armed when they close
        READY | Green | Off | Not ready: a zone is open; close it or bypass it
        ARMED | Red | On | The system is armed (Away or Stay)
        ARMED | Red | Flashing | Exit delay running
        STAY | Yellow | On | Armed Stay: interior zones are bypassed
        TROUBLE | Yellow | On | A trouble condition exists: press ✱ 2
        TROUBLE | Yellow | Flashing | The installer is programming the panel
        AC | Green | On | Mains power normal
        AC | Green | Flashing | Mains power failure: the system is running on its standby \
battery
        MEMORY | Red | Flashing | Alarm in memory: press ✱ 3 to see which zone
        BYPASS | Yellow | On | One or more zones are bypassed
        """,
        anchor="led_table",
    ),
    Heading("2.4 Keypad Sounds"),
    Table(
        "Keypad sounds",
        "Sound | Meaning",
        (2.2, 4.2),
        """
        One short beep | Key pressed
        Two short beeps | Entry accepted or option saved
        One long beep (1 second) | Invalid code or entry
        One beep per second | Exit delay running; fast beeps in the last 10 seconds
        Continuous tone | Entry delay running: enter your code now
        Three short beeps | Door chime: a chime zone was opened
        Two beeps every 10 seconds | Trouble present: press ✱ 2 to view and silence
        """,
        anchor="sounds_table",
    ),
    Heading("2.5 Display Messages"),
    Table(
        "Display messages",
        "Message | Meaning",
        (2.2, 4.2),
        """
        \"System Ready\" | All zones closed; the system can be armed
        \"Secure System Before Arming\" | A zone is open; press → to see which
        \"Exit Delay 60\" | Exit delay counting down (seconds left)
        \"Enter Your Code\" | Entry delay running: disarm now
        \"Armed Away\", \"Armed Stay\", \"Armed Instant\" | The armed mode
        \"Trouble, Press ✱2\" | A trouble is present (section 8.1)
        \"Alarm Memory, Press ✱3\" | An alarm happened (section 4.4)
        \"Invalid Code\" | Code not recognised
        \"Keypad Locked\" | Too many wrong codes (section 5.5)
        \"Bus Fault\" | The keypad has lost contact with the panel: call your installer
        """,
        anchor="messages_table",
    ),
    Heading("3 Arming and Disarming"),
    Heading("3.1 Before You Arm"),
    Para(
        "Close all protected doors and windows. The green READY LED must be on, or flashing "
        '(see 2.3). If READY is off, the keypad shows "Secure System Before Arming": press → '
        "to scroll through the open zones, then close them or bypass them (section 6.1)."
    ),
    Heading("3.2 Away Arming"),
    Para("Use Away arming when everybody leaves the premises: all zones are armed."),
    Items(
        (
            "Check that the READY LED is on.",
            "Enter your four-digit user code, then press **AWAY**.",
            "The ARMED LED flashes and the keypad beeps once per second during the exit delay "
            "(60 seconds unless your installer changed it). Fast beeps mark the last 10 seconds.",
            "Leave through the entry/exit door and close it before the exit delay ends.",
            'When the exit delay ends, the ARMED LED stays on and the display shows "Armed Away".',
        ),
        numbered=True,
        anchor="away_steps",
    ),
    Para(
        "If an entry/exit door is still open when the exit delay ends, an exit error occurs: "
        "the entry delay starts and the keypad sounds a continuous tone. Enter your code to "
        "disarm, close the door properly and arm again. If you do not disarm, a full alarm "
        "follows."
    ),
    Heading("3.3 Stay Arming"),
    Para(
        "Use Stay arming when people remain inside, for example in the evening. Doors and "
        "windows are armed; interior zones that your installer made Stay/Away zones are "
        "bypassed automatically, so you can move around inside."
    ),
    Items(
        (
            "Check that the READY LED is on.",
            "Enter your user code, then press **STAY**.",
            "The ARMED and STAY LEDs come on. There are no exit beeps when arming Stay.",
        ),
        numbered=True,
        anchor="stay_steps",
    ),
    Para(
        "The entry doors still have their entry delay when armed Stay. To remove the entry "
        "delay at night, use instant arming (section 3.4)."
    ),
    Heading("3.4 Instant Arming (No Entry Delay)"),
    Para(
        "Instant arming is Stay arming without the entry delay: opening any armed door or "
        "window causes an immediate alarm. Use it at night once everybody is at home."
    ),
    Items(
        (
            "Press **✱ 9**.",
            'Enter your user code. The ARMED and STAY LEDs come on and the display shows "Armed '
            'Instant".',
            "To disarm, enter your code at the keypad before opening any door.",
        ),
        numbered=True,
        anchor="instant_steps",
    ),
    Heading("3.5 Quick Arming"),
    Para(
        "If your installer has enabled quick arming, you can arm by holding AWAY or STAY for 2 "
        "seconds without entering a code. Quick arming is off in the factory setting. "
        "Disarming always needs a code."
    ),
    Heading("3.6 Disarming"),
    Items(
        (
            "Enter through the entry/exit door. The keypad sounds a continuous tone during the "
            "entry delay (30 seconds for the main door unless your installer changed it).",
            "Enter your user code before the entry delay ends. If you make a mistake, press **#** "
            "and enter the code again.",
            'The ARMED LED goes out and the display shows "System Ready". If the MEMORY LED '
            "flashes, an alarm happened while you were away: see section 4.4.",
        ),
        numbered=True,
        anchor="disarm_steps",
    ),
    Heading("3.7 Using a KF-4 Keyfob"),
    Table(
        "KF-4 keyfob buttons",
        "Button | Action",
        (2.2, 4.2),
        """
        Closed padlock | Arm Away
        Open padlock | Disarm
        House | Arm Stay
        Round button | Operate output PGM2 (for example a garage door), if programmed
        Both padlocks together for 3 seconds | Panic alarm, if enabled by your installer
        """,
        anchor="keyfob_table",
    ),
    Para(
        "The keyfob works up to 30 m from the RX-8 wireless receiver, less through walls. Its "
        "LED flashes once when a button is pressed; if it does not light, replace the CR2032 "
        "battery (section 9.2)."
    ),
    Heading("4 Alarms"),
    Heading("4.1 When an Alarm Occurs"),
    Para(
        "A burglary alarm sounds the siren continuously. A fire alarm sounds a pulsed pattern: "
        "three pulses, then a pause. The siren stops automatically after 4 minutes (the siren "
        "time set by your installer), but the alarm stays in memory and the MEMORY LED flashes "
        "until the system is armed again."
    ),
    Para(
        "If you come home and hear the siren, or see the MEMORY LED flashing through a window, "
        "do not go in: an intruder may still be inside. Leave, and call the police or your "
        "monitoring station from a safe place."
    ),
    Heading("4.2 Silencing and Cancelling an Alarm"),
    Items(
        (
            "Enter your user code. The siren stops and the system disarms.",
            "If you disarm within 30 seconds of a burglary alarm (the alarm abort window), the "
            'alarm is not reported to the monitoring station and the display shows "Alarm '
            'Cancelled".',
            "If the alarm had already been reported, the panel sends a cancel message. Call your "
            "monitoring station and give your password to confirm that it was a false alarm.",
        ),
        numbered=True,
        anchor="cancel_steps",
    ),
    Para(
        "Fire, panic and duress alarms are always reported at once: the abort window does not "
        "apply to them."
    ),
    Heading("4.3 Emergency Keys"),
    Table(
        "Emergency keys",
        "Key | Alarm | Siren | Report to the monitoring station",
        (0.6, 1.7, 2.2, 2.2),
        """
        F | Fire | Pulsed siren | Fire alarm
        A | Medical (auxiliary) | No siren; the keypad beeps | Medical alarm
        P | Panic | Steady siren, or silent if programmed | Panic alarm
        """,
        anchor="emergency_table",
    ),
    Para(
        "Press and hold the key for 2 seconds until the keypad beeps. The emergency keys work "
        "whether the system is armed or disarmed, and even while the keypad is locked; they do "
        "not need a code. Misuse causes false alarms, which some monitoring stations charge "
        "for."
    ),
    Heading("4.4 Alarm Memory"),
    Para(
        "The panel remembers every zone that caused an alarm during the last armed period. "
        "The red MEMORY LED flashes while alarms are in memory."
    ),
    Items(
        (
            'Press **✱ 3**. The display shows "Alarm Memory" and the first zone, for example '
            '"Zone 05 Lounge PIR".',
            "Press → to see the next zone and ← to go back.",
            "Press **#** to leave.",
        ),
        numbered=True,
        anchor="memory_steps",
    ),
    Para(
        "The alarm memory is cleared the next time the system is armed. Older alarms remain in "
        "the event log (section 7)."
    ),
    Heading("5 User Codes"),
    Heading("5.1 Types of Code"),
    Para(
        "The AX-200 has 32 user codes, numbered 01 to 32. A code has four digits, or six if "
        "your installer has set six-digit codes."
    ),
    Table(
        "User code types",
        "Code number | Type | Factory setting | What it can do",
        (1.1, 1.4, 1.2, 3.0),
        """
        01 | Master code | 1234 | Arm, disarm, bypass, program all user codes, user functions
        02 to 29 | Standard codes | Not set | Arm, disarm and bypass
        30 | Duress code | Not set | Disarms normally, but silently sends a duress alarm to \
the monitoring station
        31 | Arm-only code | Not set | Arms only; cannot disarm (for example for cleaners \
who lock up)
        32 | One-time code | Not set | Arms or disarms once, then is deleted automatically
        """,
        anchor="code_types",
    ),
    Note(
        "Change the master code from 1234 as soon as your system is installed: anybody who "
        "knows the factory code can disarm your system.",
        label="IMPORTANT",
    ),
    Para(
        "The installer code is separate from the 32 user codes. It opens installer "
        "programming only and cannot disarm the system. Ask your installer if you need changes "
        "to zones, timers or reporting."
    ),
    Heading("5.2 Changing the Master Code"),
    Items(
        (
            "With the system disarmed, press **✱ 5** and enter the master code (factory setting "
            "1234).",
            'The display shows "User Codes". Enter **01** to select the master code.',
            "Enter the new four-digit code. The keypad gives two short beeps when it is saved.",
            "Press **#** to leave.",
        ),
        numbered=True,
        anchor="master_steps",
    ),
    Para("A new code is refused with a long beep if another user already has it."),
    Heading("5.3 Adding or Changing a User Code"),
    Items(
        (
            "Press **✱ 5** and enter the master code.",
            "Enter the two-digit number of the code to program, for example 03. Numbers already in "
            "use are shown with a P (programmed).",
            "Enter the new four-digit code. Two short beeps confirm it.",
            "Enter another code number to continue, or press **#** to leave.",
        ),
        numbered=True,
    ),
    Heading("5.4 Deleting a User Code"),
    Para(
        "Press **✱ 5**, enter the master code, enter the code number and press **✱**. The code "
        'is deleted and the display shows "Deleted". The master code (01) cannot be deleted, '
        "only changed."
    ),
    Heading("5.5 Keypad Lockout"),
    Para(
        "If a wrong code is entered five times within 90 seconds, the keypad locks for 3 "
        "minutes. During the lockout every key except the emergency keys (F, A and P) is "
        'ignored and the display shows "Keypad Locked"; the event is logged and reported to '
        "the monitoring station. After 3 minutes the keypad works normally again.",
        anchor="lockout_text",
    ),
    Heading("5.6 Using the Duress Code"),
    Para(
        "If someone forces you to disarm the system, enter the duress code (user code 30) "
        "instead of your own code. The system disarms as usual and nothing on the keypad shows "
        "that help has been called, but the panel silently sends a duress alarm to the "
        "monitoring station. The duress code works only if your system is monitored, and it "
        "must be programmed first (section 5.3, code number 30)."
    ),
    Para(
        "Agree with your monitoring station how they respond to a duress alarm. Choose a duress "
        "code that differs from your own code by more than one digit, so that it is never "
        "entered by mistake.",
        anchor="duress_text",
    ),
    Heading("6 Everyday Functions"),
    Heading("6.1 Bypassing Zones"),
    Para(
        "Bypassing a zone switches it off for one armed period, for example to arm with a "
        "window left open for ventilation. A bypassed zone gives no protection. Fire zones "
        "cannot be bypassed."
    ),
    Items(
        (
            "With the system disarmed, press **✱ 1** and enter your user code.",
            "Enter the two-digit zone number, for example 05 for zone 5. The display marks the "
            "zone with a B and the BYPASS LED comes on.",
            "Repeat for other zones. Enter a number again to remove its bypass.",
            "Press **#** to leave, then arm the system.",
        ),
        numbered=True,
        anchor="bypass_steps",
    ),
    Para(
        "Bypasses are removed automatically when the system is disarmed. To bypass the same "
        "zones as last time, press **✱ 1**, enter your code and press 9 9 (recall bypass)."
    ),
    Heading("6.2 Door Chime"),
    Para(
        "With the chime on, the keypad gives three short beeps whenever a chime zone (chosen "
        "by your installer, usually the entry doors) is opened while the system is disarmed. "
        'Press **CHIME**, or **✱ 4**, to switch the chime on or off; the display shows "Chime '
        'On" or "Chime Off" for 3 seconds. The chime never sounds while the system is '
        "armed.",
        anchor="chime_text",
    ),
    Heading("6.3 Setting the Time and Date"),
    Items(
        (
            'Press **✱ 6** and enter the master code. The display shows "User Functions".',
            "Press **1** (Time and Date).",
            "Enter the time as four digits in 24-hour format (HHMM), for example 1430, then the "
            "date as six digits (DDMMYY), for example 140425 for 14 April 2025.",
            "Press **#** to leave.",
        ),
        numbered=True,
    ),
    Para(
        "The clock keeps running on the standby battery during a mains failure. If both mains "
        "and battery fail, the time is lost and the keypad shows trouble 8 (Loss of Time)."
    ),
    Heading("6.4 User Functions Menu"),
    Table(
        "User functions (✱ 6 and the master code)",
        "Key | Function",
        (0.8, 5.6),
        """
        1 | Time and date (section 6.3)
        2 | Event log (section 7)
        3 | Keypad brightness and buzzer volume: adjust with ← and →
        4 | System test: siren and keypad sounders for 2 seconds, and a battery test
        5 | Allow remote access by your installer for 6 hours
        9 | Show the firmware versions of the panel and the keypad
        """,
        anchor="functions_table",
    ),
    Heading("6.5 Output Control"),
    Para(
        "If your installer has connected a device such as a garage door or an outside light to "
        "a programmable output, you can operate it from the keypad: press **✱ 7**, enter your "
        "code, then press 1 for output PGM1 or 2 for output PGM2. Your installer will tell you "
        "which outputs are in use."
    ),
    Heading("6.6 Remote Access for Your Installer"),
    Para(
        "Your installer can check and program your system remotely only after you allow it: "
        "press **✱ 6**, enter the master code and press **5**. Remote access stays open for 6 "
        "hours, or until you press **✱ 6**, the master code and **5** again. Remote access "
        "needs the LX-4G communicator or a telephone line."
    ),
    Heading("7 Event Log"),
    Heading("7.1 Viewing the Event Log"),
    Para(
        "The panel stores the last 500 events with their date and time: arming and disarming "
        "(with the user number), alarms, bypasses, troubles and their restores, and installer "
        "access. When the log is full, the oldest event is overwritten. The event log is kept "
        "through power failures and through a factory reset.",
        anchor="log_text",
    ),
    Items(
        (
            "Press **✱ 6**, enter the master code, then press **2**.",
            "The newest event is shown first. The top line shows the event number, date and time, "
            'for example "123 14/04 18:32"; the bottom line shows the event, for example '
            '"Closing User 03".',
            "Press ← for older events and → for newer events.",
            "Press **#** to leave.",
        ),
        numbered=True,
        anchor="log_steps",
    ),
    Heading("7.2 Event Log Messages"),
    Table(
        "Event log messages",
        "Message | Meaning",
        (2.2, 4.2),
        """
        Closing User nn | System armed by user nn
        Opening User nn | System disarmed by user nn
        Alarm Zone nn | Alarm on zone nn
        Cancel User nn | Alarm cancelled by user nn within the abort window
        Bypass Zone nn | Zone nn bypassed
        AC Fail, AC Restore | Mains power lost, mains power back
        Low Battery | Standby battery low
        Duress User 30 | The duress code was used
        Keypad Lockout | Keypad locked after five wrong codes
        Test Report | Periodic test report sent to the monitoring station
        Install In, Install Out | Installer programming entered, left
        """,
        anchor="log_table",
    ),
    Heading("8 Troubles and Troubleshooting"),
    Heading("8.1 Viewing Troubles"),
    Para(
        "When the panel detects a problem, the yellow TROUBLE LED comes on and the keypad "
        "beeps twice every 10 seconds. Press **✱ 2** to silence the beeps and see the list of "
        "troubles, each with its number; press → to scroll and **#** to leave. The TROUBLE LED "
        "goes out when all troubles have cleared."
    ),
    Table(
        "Trouble list (✱ 2)",
        "No. | Trouble | What to do",
        (0.5, 1.7, 4.2),
        """
        1 | AC power failure | Check the circuit breaker or fused spur that supplies the \
panel. The system runs on its battery; call your installer if mains power is not back within \
12 hours
        2 | Low battery | After a power cut, wait 24 hours for the battery to recharge; if the \
trouble stays, call your installer
        3 | Bell circuit | Siren wiring fault: call your installer
        4 | Communication failure | The panel could not reach the monitoring station: check \
the telephone line, then call your installer
        5 | Zone fault | Press → to see the zone; a detector or its cable is faulty
        6 | Tamper | A detector, the keypad or the panel has been opened or damaged: call your \
installer
        7 | Wireless device low battery | Replace the battery of the device shown (section 9.2)
        8 | Loss of time | Set the time and date (section 6.3)
        """,
        anchor="trouble_table",
    ),
    Heading("8.2 Troubleshooting"),
    Table(
        "Troubleshooting",
        "Problem | Possible cause | What to do",
        (2, 2, 3),
        """
        Cannot arm: READY LED off | A zone is open | Close doors and windows; press → to see \
the open zone, or bypass it (section 6.1)
        Keypad shows \"Invalid Code\" | Wrong code, or code not programmed | Enter the code \
again slowly; five wrong codes within 90 seconds lock the keypad for 3 minutes
        AC LED flashing | Mains power failure | Check the circuit breaker; the system runs on \
its battery meanwhile
        Chime does not sound | Chime off, or the door is not a chime zone | Press CHIME; ask \
your installer to make the door a chime zone
        Keyfob does not work | Flat battery, or out of range (30 m) | Replace the CR2032 \
battery; move closer to the RX-8
        Siren sounded but no alarm in memory | A 24-hour zone or tamper alarm while \
disarmed | Check the event log (section 7)
        Keypad display blank | Keypad without power, or panel fault | Call your installer; the \
system may still be armed
        Keypad beeps every 10 seconds | A trouble is present | Press ✱ 2 to view the trouble \
and silence the beeps
        """,
        anchor="um_trouble",
    ),
    Heading("9 Testing and Maintenance"),
    Heading("9.1 Weekly Test"),
    Items(
        (
            "Tell your monitoring station that you are testing, so they do not act on alarms.",
            "Press **✱ 6**, enter the master code, then press **4** (System Test). The siren and "
            "all keypad sounders operate for 2 seconds and the panel tests its battery.",
            "With the chime on and the system disarmed, open each protected door and window and "
            "check that the keypad chimes; walk in front of each motion detector and check that "
            "its LED lights.",
            "If any part of the test fails, call your installer.",
        ),
        numbered=True,
        anchor="test_steps",
    ),
    Heading("9.2 Batteries"),
    Para(
        "The standby battery in the control panel (BT-127, 12 V 7 Ah) keeps the system running "
        "during mains failures; fully charged, it powers a typical system for about 24 hours. "
        "Lead-acid batteries age: have your installer replace the standby battery every 3 to 5 "
        "years, or sooner if a Low Battery trouble remains after mains power has been back for "
        "24 hours. Do not replace it yourself: the control panel contains mains wiring.",
        anchor="standby_battery_text",
    ),
    Table(
        "Wireless device batteries",
        "Device | Battery | Typical life",
        (2.4, 2.4, 1.6),
        """
        KF-4 keyfob | CR2032, 3 V lithium | 2 years
        PX-12 wireless motion detector | CR123A, 3 V lithium | 3 years
        DC-3 door/window contact | CR123A, 3 V lithium | 5 years
        """,
        anchor="device_battery_table",
    ),
    Para(
        "When the battery of a wireless device runs low, trouble 7 appears and the event is "
        "logged. Replace the battery within 30 days; the device keeps working until then."
    ),
    Heading("9.3 Cleaning"),
    Para(
        "Clean the keypad with a soft cloth slightly moistened with water. Do not use "
        "solvents, abrasive cleaners or sprays: they damage the display window and the key "
        "legends. Do not paint over detectors or cover their lenses."
    ),
    Heading("10 Glossary"),
    *(
        Para(f"**{term}:** {meaning}")
        for term, meaning in (
            (
                "Alarm abort window",
                "The 30 seconds after a burglary alarm during which disarming "
                "stops the alarm from being reported.",
            ),
            (
                "Alarm memory",
                "The list of zones that caused an alarm during the last armed period, "
                "shown with ✱ 3.",
            ),
            ("Away arming", "Arming every zone, for when everybody has left."),
            ("Bypass", "Switching a zone off for one armed period."),
            (
                "Chime zone",
                "A zone that makes the keypad beep three times when opened while the "
                "system is disarmed.",
            ),
            ("Duress code", "User code 30: it disarms normally but silently calls for help."),
            (
                "Entry delay",
                "The time you have to disarm after opening the entry door of an armed "
                "system; 30 seconds in the factory setting.",
            ),
            (
                "Exit delay",
                "The time you have to leave after arming; 60 seconds in the factory setting.",
            ),
            ("Force-arm zone", "A zone that may be open when you arm; it is armed when it closes."),
            ("Instant arming", "Stay arming without entry delay (✱ 9)."),
            (
                "Master code",
                "User code 01, which can program the other codes; 1234 in the factory setting.",
            ),
            (
                "Monitoring station",
                "The company that receives your system's alarm reports and "
                "calls you or the emergency services.",
            ),
            ("Stay arming", "Arming the doors and windows while people stay inside."),
            (
                "Trouble",
                "A fault the panel has detected, such as a mains failure or a low battery; "
                "shown by the TROUBLE LED and listed with ✱ 2.",
            ),
            (
                "Zone",
                "A numbered detection circuit: one or more detectors that the panel treats as "
                "one input.",
            ),
        )
    ),
)


# ---------------------------------------------------------------------------------------------
# The two manuals and the questions about them.
# ---------------------------------------------------------------------------------------------

MANUALS: tuple[ManualSpec, ...] = (
    ManualSpec(
        "IM",
        "Lumen_AX200_Installation_Manual.pdf",
        "Installation Manual",
        "NLS-AX200-IM",
        "1.3",
        "14 March 2025",
        "For use by qualified alarm installers",
        INSTALLATION_BLOCKS,
    ),
    ManualSpec(
        "UM",
        "Lumen_AX200_User_Manual.pdf",
        "User Manual",
        "NLS-AX200-UM",
        "1.3",
        "14 March 2025",
        "Keep this manual near your keypad",
        USER_BLOCKS,
    ),
)


@dataclass(frozen=True)
class Evidence:
    """Facts a question needs and the anchored block (in manual ``manual``) that holds them."""

    manual: str
    anchor: str
    facts: tuple[str, ...]


@dataclass(frozen=True)
class Question:
    """A benchmark question; no evidence means the manuals do not answer it."""

    qid: str
    category: str
    query: str
    answer: str
    evidence: tuple[Evidence, ...] = ()
    routing_trap: bool = False
    notes: str | None = None


QUESTIONS: tuple[Question, ...] = (
    Question(
        "s01",
        "visual",
        "What voltage and maximum current does the AX-200's AUX+ terminal supply?",
        "13.8 V DC at up to 500 mA; the 500 mA limit is shared with the KeyBus power terminal KB+.",
        (Evidence("IM", "terminal_table", ("13.8 V", "500 mA")),),
    ),
    Question(
        "s02",
        "visual",
        "With DEOL zone wiring, what resistance should a zone loop "
        "measure at the panel when normal and when in alarm?",
        "Normal: 2.2 kΩ (the alarm contact shorts the 2.2 kΩ alarm resistor, leaving the "
        "2.2 kΩ EOL). Alarm: 4.4 kΩ. Tamper gives an open circuit and a short (0 Ω) is a "
        "fault.",
        (Evidence("IM", "deol_fig", ("2.2 kΩ", "4.4 kΩ")),),
    ),
    Question(
        "s03",
        "direct",
        "What is the factory default installer code, and how do I enter installer programming?",
        "Press ✱ 8 followed by the installer code; the factory default installer code is 5190.",
        (Evidence("IM", "enter_programming", ("✱ 8", "5190")),),
    ),
    Question(
        "s04",
        "visual",
        "How do I set the AX-200 so that PGM2 outputs 5 V instead of 12 V?",
        "Move jumper J3 to pins 2-3 (5 V); pins 1-2 give 12 V, the factory setting. Change "
        "jumpers with mains and battery disconnected, since they are read at power-up.",
        (Evidence("IM", "jumper_table", ("J3", "2-3", "5 V")),),
    ),
    Question(
        "s05",
        "visual",
        "How many hours of standby will a 7 Ah battery give if the system draws 500 mA in standby?",
        "About 11.9 hours (an 18 Ah battery would give 30.6 hours).",
        (Evidence("IM", "standby_table", ("11.9 h",)),),
    ),
    Question(
        "s06",
        "visual",
        "Which Contact ID event codes does the AX-200 send for a low "
        "system battery and for a bell circuit trouble?",
        "302 for a low system battery and 321 for a bell circuit trouble.",
        (Evidence("IM", "cid_table", ("302", "321")),),
    ),
    Question(
        "s07",
        "complex",
        "How many zones can the AX-200 handle in total, and which zone "
        "numbers does a ZX-8 expander set to address 2 provide?",
        "Up to 64 zones: 8 on the board, 24 wired on three ZX-8 expanders and 32 wireless "
        "on the RX-8. A ZX-8 at address 2 provides zones 17-24.",
        (Evidence("IM", "spec_table", ("64",)), Evidence("IM", "keybus_addresses", ("17-24",))),
    ),
    Question(
        "s08",
        "complex",
        "The AC LED on the keypad is flashing. What does that mean, and "
        "how long before the panel reports it to the monitoring station?",
        "Mains power has failed and the system is running on its standby battery. The "
        "panel reports the AC loss (Contact ID 301) only after the AC loss report delay, "
        "30 minutes by default (section [024]).",
        (
            Evidence("UM", "led_table", ("standby battery",)),
            Evidence("IM", "timers_table", ("30 min",)),
        ),
    ),
    Question(
        "s09",
        "visual",
        "What does a flashing green READY LED mean?",
        "Zones are open but they are force-arm zones: the system can still be armed, and "
        "those zones are armed when they close.",
        (Evidence("UM", "led_table", ("force-arm",)),),
    ),
    Question(
        "s10",
        "direct",
        "How many wrong code attempts lock the keypad, and for how long?",
        "Five wrong codes within 90 seconds lock the keypad for 3 minutes; the emergency "
        "keys F, A and P still work, and the event is logged and reported.",
        (Evidence("UM", "lockout_text", ("90 seconds", "3 minutes")),),
    ),
    Question(
        "s11",
        "direct",
        "How often should the standby battery in the control panel be replaced?",
        "Every 3 to 5 years, by the installer (BT-127, 12 V 7 Ah), or sooner if a Low "
        "Battery trouble remains 24 hours after mains power has returned.",
        (Evidence("UM", "standby_battery_text", ("3 to 5 years",)),),
        routing_trap=True,
        notes="The installation manual's battery pages match the words better but give "
        "no replacement interval; the answer is in the user manual's maintenance "
        "chapter.",
    ),
    Question(
        "s12",
        "direct",
        "How do we arm the system at night while we are home so that "
        "opening a door triggers the alarm immediately?",
        "Use instant arming: press ✱ 9, then enter a user code. It arms Stay (interior "
        "zones bypassed) with no entry delay, so any armed door causes an immediate "
        "alarm; disarm at the keypad before opening a door.",
        (Evidence("UM", "instant_steps", ("✱ 9",)),),
    ),
    Question(
        "s13",
        "visual",
        "Which KP-20 key sends a medical alarm, and does it sound the siren?",
        "The A (auxiliary/medical) key, held for 2 seconds. It does not sound the siren; "
        "only the keypad beeps, and a medical alarm is reported.",
        (Evidence("UM", "keys_table", ("2 seconds", "no siren")),),
    ),
    Question(
        "s14",
        "unanswerable",
        "Can the AX-200 be connected to a Z-Wave home automation hub?",
        "The manuals do not say; they describe no Z-Wave interface.",
    ),
    Question(
        "s15",
        "unanswerable",
        "What is the IP rating of the KP-20 keypad for mounting outdoors?",
        "The manuals give no IP (ingress protection) rating for the KP-20.",
    ),
    Question(
        "s16",
        "unanswerable",
        "How many wireless sirens can the RX-8 transceiver support?",
        "The manuals do not mention wireless sirens; they only give the RX-8's limits of "
        "32 wireless zones and 8 keyfobs.",
        notes="Near miss: the RX-8's zone and keyfob limits are documented, sirens are not.",
    ),
)


# ---------------------------------------------------------------------------------------------
# Rendering, locating the evidence, writing the files.
# ---------------------------------------------------------------------------------------------


@dataclass
class RenderedManual:
    """A saved manual: its file name, anchor placements and normalised page texts."""

    filename: str
    placements: dict[str, Placement]
    page_texts: list[str] = field(default_factory=list)


def render_manual(spec: ManualSpec, out: Path) -> RenderedManual:
    """Lay out and save one manual, then read its text back for locating evidence."""
    writer = ManualWriter(spec)
    doc = writer.render()
    path = out / spec.filename
    doc.save(path, garbage=4, deflate=True, no_new_id=True)
    doc.close()
    with pymupdf.open(path) as saved:
        texts = [normalise(page.get_text()) for page in saved]
    return RenderedManual(spec.filename, writer.placements, texts)


def locate(evidence: Evidence, manual: RenderedManual) -> list[int]:
    """Pages of the anchored block on which the evidence's facts actually appear."""
    placement = manual.placements[evidence.anchor]
    pages: set[int] = set()
    for fact in evidence.facts:
        hits = [p for p in placement.pages if normalise(fact) in manual.page_texts[p - 1]]
        if not hits:
            raise ValueError(
                f"{fact!r} not found on pages {placement.pages} of "
                f"{manual.filename} (anchor {evidence.anchor!r})"
            )
        pages.add(hits[0])
    return sorted(pages)


def question_record(question: Question, manuals: dict[str, RenderedManual]) -> dict[str, object]:
    """The question in the benchmark dataset format, with pages from the layout."""
    by_manual: dict[str, list[int]] = {}
    for evidence in question.evidence:
        pages = by_manual.setdefault(evidence.manual, [])
        pages.extend(p for p in locate(evidence, manuals[evidence.manual]) if p not in pages)
    primary = question.evidence[0] if question.evidence else None
    placement = manuals[primary.manual].placements[primary.anchor] if primary else None
    return {
        "id": question.qid,
        "category": question.category,
        "query": question.query,
        "answer": question.answer,
        "key_facts": list(dict.fromkeys(f for e in question.evidence for f in e.facts)),
        "evidence": {
            "document": manuals[primary.manual].filename if primary else None,
            "locations": [{"page": p} for p in sorted(by_manual[primary.manual])]
            if primary
            else [],
            "section": placement.section if placement else None,
            "visual_element": placement.label if placement else None,
        },
        "additional_evidence": [
            {"document": manuals[key].filename, "locations": [{"page": p} for p in sorted(pages)]}
            for key, pages in by_manual.items()
            if primary and key != primary.manual
        ],
        "routing_trap": question.routing_trap,
        "notes": question.notes,
    }


def build(out: Path) -> list[dict[str, object]]:
    """Write both manuals and questions.json into ``out``; return the questions."""
    out.mkdir(parents=True, exist_ok=True)
    manuals = {spec.key: render_manual(spec, out) for spec in MANUALS}
    records = [question_record(question, manuals) for question in QUESTIONS]
    text = json.dumps(records, indent=1, ensure_ascii=False)
    (out / "questions.json").write_text(text + "\n", encoding="utf-8")
    return records


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    default_out = Path(__file__).resolve().parent.parent / "manuals"
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default_out, help="output folder")
    args = parser.parse_args(argv)
    records = build(args.out)
    for spec in MANUALS:
        with pymupdf.open(args.out / spec.filename) as doc:
            print(f"{args.out / spec.filename}: {doc.page_count} pages")
    print(f"{args.out / 'questions.json'}: {len(records)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
