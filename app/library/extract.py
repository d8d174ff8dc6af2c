"""Reading a PDF page with PyMuPDF: lines with boxes, tables kept whole, words, images.

Extraction is two-pass over a document: ``read_page`` collects raw lines and tables of
every page, then ``build_page`` classifies them once document-wide facts (the body font
size, running headers and footers) are known.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import pymupdf

from app.library.layout import drop_furniture, group_blocks, join_label_values
from app.library.models import Block, Box, PageContent, TextLine, Word
from app.library.symbols import is_private_use, map_symbol

# Text only: leaving out images keeps 'dict' extraction fast on scanned pages.
_TEXT_FLAGS = (
    pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP
)
_BOLD_FLAG = 16


@dataclass(slots=True)
class RawTable:
    box: Box
    rows: list[tuple[str, ...]]
    row_boxes: list[Box]


@dataclass(slots=True)
class RawPage:
    """What one page yields before document-wide classification."""

    number: int
    width: float
    height: float
    groups: list[list[TextLine]]  # PyMuPDF layout blocks, each a list of lines
    tables: list[RawTable] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    image_coverage: float = 0.0  # share of the page area covered by images
    ocr: bool = False

    @property
    def lines(self) -> list[TextLine]:
        return [line for group in self.groups for line in group]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def read_page(page: pymupdf.Page, find_tables: bool = True) -> RawPage:
    """Raw lines (symbol glyphs mapped), tables and words of one page."""
    rect = page.rect
    glyphs: dict[str, str] = {}
    groups = []
    for block in page.get_text("dict", flags=_TEXT_FLAGS)["blocks"]:
        lines = [ln for ln in (_line(raw, glyphs) for raw in block.get("lines", ())) if ln]
        if lines:
            groups.append(lines)
    tables = _tables(page) if find_tables and _may_have_tables(page) else []
    return RawPage(
        number=page.number + 1,
        width=rect.width,
        height=rect.height,
        groups=groups,
        tables=tables,
        words=_words(page, glyphs),
        image_coverage=_image_coverage(page),
    )


def _line(raw: dict, glyphs: dict[str, str]) -> TextLine | None:
    parts: list[str] = []
    sizes: dict[float, int] = {}
    bold_chars = 0
    for span in raw["spans"]:
        text = _map_span_text(span["text"], span["font"], glyphs)
        parts.append(text)
        n = len(text.strip())
        sizes[round(span["size"], 1)] = sizes.get(round(span["size"], 1), 0) + n
        if span["flags"] & _BOLD_FLAG or "bold" in span["font"].lower():
            bold_chars += n
    text = re.sub(r"\s+", " ", "".join(parts)).strip()
    if not text:
        return None
    total = sum(sizes.values()) or 1
    size = max(sizes.items(), key=lambda kv: kv[1])[0] if sizes else 0.0
    x0, y0, x1, y1 = raw["bbox"]
    return TextLine(text, (x0, y0, x1, y1), size, bold_chars * 2 > total)


def _map_span_text(text: str, font: str, glyphs: dict[str, str]) -> str:
    if not any(is_private_use(ch) for ch in text):
        return text
    out = []
    for ch in text:
        if is_private_use(ch):
            mapped = map_symbol(font, ch)
            glyph = mapped.glyph if mapped else "\u25a1"
            glyphs[ch] = glyph
            out.append(glyph)
        else:
            out.append(ch)
    return "".join(out)


def _words(page: pymupdf.Page, glyphs: dict[str, str]) -> list[Word]:
    words = []
    for x0, y0, x1, y1, text, *_ in page.get_text("words", flags=_TEXT_FLAGS):
        if glyphs and any(is_private_use(ch) for ch in text):
            text = "".join(glyphs.get(ch, ch) for ch in text)
        words.append(Word(text, (x0, y0, x1, y1)))
    return words


def _image_coverage(page: pymupdf.Page) -> float:
    area = page.rect.width * page.rect.height or 1.0
    covered = 0.0
    for info in page.get_image_info():
        rect = pymupdf.Rect(info["bbox"]) & page.rect
        covered += rect.width * rect.height if not rect.is_empty else 0.0
    return min(covered / area, 1.0)


def _may_have_tables(page: pymupdf.Page) -> bool:
    """Ruled tables need vector lines or rectangles; skip the costly search without them."""
    return len(page.get_cdrawings()) >= 4


def _tables(page: pymupdf.Page) -> list[RawTable]:
    tables = []
    try:
        found = page.find_tables()
    except Exception:  # a malformed drawing must not fail the page: keep its text
        return []
    for table in found.tables:
        rows = [tuple(_cell(c) for c in row) for row in table.extract()]
        boxes = [tuple(r.bbox) for r in table.rows]
        keep = merge_spanned_rows([(r, b) for r, b in zip(rows, boxes, strict=False) if any(r)])
        if keep and character_grid([r for r, _ in keep]):
            keep = [((grid_text(r),), b) for r, b in keep]
        elif len(keep) < 2 or max(len(r) for r, _ in keep) < 2:
            continue  # a framed paragraph, not a table
        tables.append(
            RawTable(tuple(table.bbox), [r for r, _ in keep], [b for _, b in keep])  # type: ignore[misc]
        )
    return tables


def merge_spanned_rows(
    rows: Sequence[tuple[tuple[str, ...], Box]],
) -> list[tuple[tuple[str, ...], Box]]:
    """Rows whose cells span several of the table's ruled rows, read whole. A cell two
    rows high ("Perimeter" beside its row of responses, centred on it) comes out of the
    table finder as a row of its own, lying within the height of the row whose other
    cells it labels; so does the second line of a tall header cell ("Under" / "Away Entry"
    / "Timer"). Each such row joins the row that holds it, cell by cell, so a value keeps
    its label and a heading its words."""
    out: list[tuple[tuple[str, ...], Box]] = []
    for cells, box in rows:
        host = next(
            (
                i
                for i in range(len(out) - 1, -1, -1)
                if len(out[i][0]) == len(cells)
                and out[i][1][1] - 0.5 <= box[1]
                and box[3] <= out[i][1][3] + 0.5
            ),
            None,
        )
        if host is None:
            out.append((cells, box))
            continue
        held, held_box = out[host]
        joined = tuple(f"{a} {b}".strip() for a, b in zip(held, cells, strict=True))
        out[host] = (joined, held_box)
    return out


def character_grid(rows: Sequence[tuple[str, ...]]) -> bool:
    """A screen drawn one character to a cell: a display's or a keypad's text in a
    manual's drawing ("E | n | t | e | r |  | C | o | d | e"). Every filled cell holds one
    character, the grid is at least six cells wide, and letters run on across cells. A
    table of marks ("●") or of single-letter codes has row labels or no runs of letters."""
    cells = [c for row in rows for c in row if c]
    return (
        len(cells) >= 3
        and max(len(row) for row in rows) >= 6
        and all(len(c) == 1 for c in cells)
        and any(_LETTER_RUN.search(grid_text(row)) for row in rows)
    )


def grid_text(row: tuple[str, ...]) -> str:
    """A character grid's row as the text it shows: filled cells run together, an empty
    cell is a space."""
    return " ".join("".join(c or " " for c in row).split())


_LETTER_RUN = re.compile(r"[^\W\d_]{3}")


def _cell(value: str | None) -> str:
    return re.sub(r"\s+", " ", value or "").strip()


def build_page(
    raw: RawPage,
    body_size: float,
    furniture: set[str],
    map_text: dict[str, str] | None = None,
) -> PageContent:
    """Classify a raw page's lines into blocks; table lines become whole table blocks."""
    blocks_by_y: list[tuple[float, Block]] = []
    table_boxes = [t.box for t in raw.tables]
    groups = []
    for group in raw.groups:
        lines = drop_furniture(
            [ln for ln in group if not _inside_any(ln.box, table_boxes)], raw.height, furniture
        )
        if lines:
            groups.append(lines)
    groups = join_label_values(groups)
    for block in group_blocks(groups, body_size):
        blocks_by_y.append((block.box[1], block))
    for table in raw.tables:
        blocks_by_y.append((table.box[1], _table_block(table)))
    blocks = _reading_order(blocks_by_y)
    return PageContent(
        number=raw.number,
        width=raw.width,
        height=raw.height,
        blocks=tuple(blocks),
        words=tuple(raw.words),
        ocr=raw.ocr,
    )


def _reading_order(items: list[tuple[float, Block]]) -> list[Block]:
    """Keep layout order for text, placing each table before the first block below it."""
    text = [b for _, b in items if b.kind != "table"]
    tables = sorted(((y, b) for y, b in items if b.kind == "table"), key=lambda t: t[0])
    out: list[Block] = []
    for block in text:
        while tables and tables[0][0] <= block.box[1]:
            out.append(tables.pop(0)[1])
        out.append(block)
    out.extend(b for _, b in tables)
    return out


def _table_block(table: RawTable) -> Block:
    lines = tuple(
        # Empty cells are kept, so a cell stays under its column's heading ("a dot in
        # the Digital Input column" is not "a dot in the first non-empty column").
        TextLine(" | ".join(row), box)
        for row, box in zip(table.rows, table.row_boxes, strict=True)
    )
    return Block("table", lines, rows=tuple(table.rows))


def _inside_any(box: Box, containers: Sequence[Box]) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(c[0] - 1 <= cx <= c[2] + 1 and c[1] - 1 <= cy <= c[3] + 1 for c in containers)


def document_title(doc: pymupdf.Document, first: RawPage | None, fallback: str) -> str:
    """The metadata title when it looks real, else the largest text on the first page,
    else ``fallback`` (the file name, readable). Authoring tools leave their own text in
    the metadata: the source file's name, a template's "Document Title", a job number
    ("#290"); every citation would name the manual by it. A real title has a word, and so
    does a cover's largest text when it is one."""
    meta = (doc.metadata or {}).get("title", "") or ""
    meta = meta.strip()
    placeholder = re.search(
        r"\.(docx?|pdf|indd|qxd)$|^untitled|^microsoft|\bdocument title\b|^title$", meta, re.I
    )
    text = " ".join(ln.text for ln in first.lines) if first is not None else ""
    if len(meta) > 3 and not placeholder and _WORD.search(meta) and not _foreign_script(meta, text):
        return meta
    if first is not None:
        lines = [ln for ln in first.lines if len(ln.text) > 3 and ln.size > 0]
        if lines:
            title = " ".join(ln.text for ln in _title_lines(lines))
            if 3 < len(title) <= 120 and _WORD.search(title):
                return title
    return fallback


_WORD = re.compile(r"[^\W\d_]{3,}")  # three letters in a row, in any script


def _title_lines(lines: Sequence[TextLine]) -> list[TextLine]:
    """The cover's title: the first line of its largest text and those of the same size
    that follow it down the page, each within about two lines of the one before. A
    heading of the same size further down is another thing: a cover that opens onto the
    contents ("DP C240.CAN" at the top, "CONTENT" halfway down) is titled by the first."""
    top = max(ln.size for ln in lines)
    big = [ln for ln in lines if ln.size >= top - 0.5]
    title = [big[0]]
    for line in big[1:]:
        # Tops, not gaps: a line's box may be taller than its letters.
        if abs(line.box[1] - title[-1].box[1]) > 2.5 * top:
            break
        title.append(line)
    return title


def _foreign_script(title: str, text: str) -> bool:
    """Whether ``title`` is written in a script the first page's ``text`` hardly uses: a
    print job's name in the maker's language ("说明书 uv-K5英文（10X9.5cm）") on a manual
    printed in English. A page of too few letters to tell says nothing."""
    body = Counter(_script(c) for c in text if c.isalpha())
    letters = sum(body.values())
    if letters < 50:
        return False
    scripts = {_script(c) for c in title if c.isalpha()}
    return any(body[script] < 0.02 * letters for script in scripts)


def _script(letter: str) -> str:
    """A letter's script, as the first word of its Unicode name ("LATIN", "CJK", "CYRILLIC")."""
    return unicodedata.name(letter, "?").split(" ")[0]
