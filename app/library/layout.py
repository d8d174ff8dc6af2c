"""Turning positioned lines into structure: headings, paragraphs, list items, furniture.

Shared by the text-layer extractor and the OCR path, so both produce the same kind of
blocks for the chunker.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from app.library.models import Block, TextLine, union_box

_LIST_START = re.compile(
    r"^\s*(?:[•●○◦▪■□◆◇►▶➢➤✓✔\-–—*·⚫⚪]|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)]|[ivx]{1,4}[.)])\s+"
)
_NUMBERED_HEADING = re.compile(r"^\s*(?:\d+(?:\.\d+){0,3}\.?|[A-Z]\.|[IVX]{1,5}\.?)\s+\S")
_BULLET_ONLY = re.compile(r"^\s*[•●○◦▪■□◆◇►▶➢➤✓✔\-–*·⚫⚪]\s*$")
_ENUMERATOR_ONLY = re.compile(r"^\s*(?:[A-Z]\.|[IVX]{1,5}\.?|\d{1,2}(?:\.\d{1,2})*\.)\s*$")
_SENTENCE_END = re.compile(r"[.:;,]\s*$")


def body_font_size(lines: Sequence[TextLine]) -> float:
    """The font size most characters are set in (the body text size)."""
    weights: Counter[float] = Counter()
    for line in lines:
        if line.size > 0:
            weights[round(line.size * 2) / 2] += len(line.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def is_heading(line: TextLine, body_size: float) -> bool:
    """A short line set larger than the body, or bold and numbered like a section title."""
    text = line.text.strip()
    if not text or len(text) > 90 or not any(c.isalpha() for c in text):
        return False
    if _SENTENCE_END.search(text) and not text.endswith(":"):
        return False
    bigger = body_size > 0 and line.size >= body_size * 1.12 and line.size - body_size >= 1.0
    if bigger:
        return True
    if line.bold and _NUMBERED_HEADING.match(text):
        return True
    # Typewritten and OCR'd manuals: numbered, upper-case titles.
    letters = [c for c in text if c.isalpha()]
    upper = sum(c.isupper() for c in letters) / len(letters)
    return bool(_NUMBERED_HEADING.match(text)) and upper > 0.8 and len(letters) >= 4


def _title_like(text: str) -> bool:
    """'B. Printer and Computer Interface Specifications': short, most words capitalised."""
    words = [w for w in re.findall(r"[A-Za-z]+", text) if len(w) > 3]
    if not words or len(text) > 80 or (_SENTENCE_END.search(text) and not text.endswith(":")):
        return False
    return sum(w[0].isupper() for w in words) / len(words) >= 0.6


# A title numbered in brackets, after an ornament or not: "◆(6.2)Switch Main Channel",
# "◇ （6.11-1）DTMF Calling".
_BRACKETED_NUMBER = re.compile(r"^\s*[◆◇■□●○▶►]?\s*[(（]\d+(?:[.\-]\d+){0,3}[)）]\s*\S")


def is_numbered_heading(text: str) -> bool:
    """'9.5. Appendix E', 'IV MESSAGE FORMATS', '◆(6.2)Switch Main Channel': a section
    title that opens a new section."""
    return bool(_NUMBERED_HEADING.match(text) or _BRACKETED_NUMBER.match(text))


def is_list_start(text: str) -> bool:
    return bool(_LIST_START.match(text))


def furniture_keys(pages: Sequence[tuple[float, Sequence[TextLine]]]) -> set[str]:
    """Running headers and footers: lines near the top or bottom edge repeated on many pages.

    ``pages`` holds (page height, lines) per page. Returns normalised texts to drop.
    """
    counts: Counter[str] = Counter()
    for height, lines in pages:
        seen = set()
        for line in lines:
            if _in_margin(line, height):
                seen.add(furniture_key(line.text))
        counts.update(seen)
    threshold = max(3, int(0.3 * len(pages)))
    return {key for key, n in counts.items() if n >= threshold and key}


def furniture_key(text: str) -> str:
    """Header/footer text with page numbers folded, so 'Page 3' and 'Page 4' match."""
    return re.sub(r"\d+", "#", text.strip().lower())


def _in_margin(line: TextLine, height: float) -> bool:
    return line.box[3] < height * 0.085 or line.box[1] > height * 0.915


_LABEL_END = (":", "\uff1a")  # a colon, or the full-width colon of CJK typesetting
# A label's value sits within this many line heights to its right ("Weight:   234 g").
LABEL_GAP = 1.5
# ... and shares this much of the lower line's height with it: the same row.
ROW_OVERLAP = 0.6
# A section number set apart ends within this many line heights left of its title (the
# receiver's scanned text layer leaves 0.7 to 1.8 between a number and its title).
NUMBER_GAP = 3.0


def join_label_values(groups: Sequence[Sequence[TextLine]]) -> list[list[TextLine]]:
    """Each label ending with a colon joined to the value printed beside it on its row.

    A specification list set as two columns (labels right-aligned, values left-aligned
    beside them) reaches PyMuPDF as two blocks, so the page reads every label, then every
    value: "Frequency Stability:" and its "±1ppm" end up a dozen lines apart, and no
    window or quote holds both. A scan's text layer splits a run-in heading from its
    text the same way ("WAITING LED:" | "When lit, indicates ..."). A label is a line
    ending with a colon that is no numbered section title; its value is the nearest line
    starting to its right within ``LABEL_GAP`` line heights (or overlapping it by half of
    one: a full-width colon's box runs past its glyph) and sharing ``ROW_OVERLAP`` of the
    lower line's height, that is no label itself. A title whose number is set as a line
    of its own ("6." | "Auto AC:", within ``NUMBER_GAP`` line heights to its left) is a
    numbered title too: the number meets it only in ``group_blocks``. Each value joins one
    label; the joined line takes the label's place, in the label's group."""
    lines = sorted((ln for group in groups for ln in group), key=lambda ln: ln.box[1])
    tops = [ln.box[1] for ln in lines]
    tallest = max((ln.box[3] - ln.box[1] for ln in lines), default=0.0)
    taken: set[int] = set()
    joined: dict[int, TextLine] = {}
    for label in lines:
        # A numbered section title ending with a colon ("3. Manual Mode on Computer
        # Failure:") opens a section: the text beside it is its body, not its value.
        if not label.text.rstrip().endswith(_LABEL_END) or is_numbered_heading(label.text):
            continue
        # Only lines whose top is within the tallest line's height of the label's can
        # share its row.
        lo = bisect_left(tops, label.box[1] - tallest)
        hi = bisect_left(tops, label.box[3])
        row = lines[lo:hi]
        if _enumerator_before(label, row):
            continue
        value = _value_beside(label, row, taken)
        if value is not None:
            taken.add(id(value))
            joined[id(label)] = _joined(label, value)
    if not joined:
        return [list(group) for group in groups]
    out = []
    for group in groups:
        kept = [joined.get(id(ln), ln) for ln in group if id(ln) not in taken]
        if kept:
            out.append(kept)
    return out


def _same_row(a: TextLine, b: TextLine) -> tuple[float, bool]:
    """The lower of the two lines' heights, and whether they share ``ROW_OVERLAP`` of it."""
    height = min(a.box[3] - a.box[1], b.box[3] - b.box[1])
    shared = min(a.box[3], b.box[3]) - max(a.box[1], b.box[1])
    return height, height > 0 and shared >= ROW_OVERLAP * height


def _enumerator_before(label: TextLine, lines: Sequence[TextLine]) -> bool:
    """Whether a bare section number ("3.", "B.") ends just left of the label on its row."""
    for line in lines:
        if line is label or not _ENUMERATOR_ONLY.match(line.text):
            continue
        height, beside = _same_row(label, line)
        gap = label.box[0] - line.box[2]
        if beside and -0.5 * height <= gap <= NUMBER_GAP * height:
            return True
    return False


def _value_beside(label: TextLine, lines: Sequence[TextLine], taken: set[int]) -> TextLine | None:
    """The nearest line to the label's right on its row, not taken and no label itself."""
    x1 = label.box[2]
    best: tuple[float, TextLine] | None = None
    for line in lines:
        if line is label or id(line) in taken or line.text.rstrip().endswith(_LABEL_END):
            continue
        height, beside = _same_row(label, line)
        gap = line.box[0] - x1
        near = -0.5 * height <= gap <= LABEL_GAP * height
        if beside and near and (best is None or gap < best[0]):
            best = (gap, line)
    return None if best is None else best[1]


def _joined(label: TextLine, value: TextLine) -> TextLine:
    """One line: the label's text and then the value's, the size of the longer part, bold
    only when both are (a bold label before plain text is no heading)."""
    size = label.size if len(label.text) >= len(value.text) else value.size
    return TextLine(
        f"{label.text.rstrip()} {value.text.strip()}",
        union_box([label.box, value.box]),
        size,
        label.bold and value.bold,
    )


def drop_furniture(lines: Sequence[TextLine], height: float, keys: set[str]) -> list[TextLine]:
    """Lines minus running headers/footers and bare page numbers in the margins."""
    kept = []
    for line in lines:
        if _in_margin(line, height):
            key = furniture_key(line.text)
            if key in keys or re.fullmatch(r"[#\s\-–|/]*(page|p\.)?[#\s\-–|/]*", key):
                continue
        kept.append(line)
    return kept


def group_blocks(groups: Sequence[Sequence[TextLine]], body_size: float) -> list[Block]:
    """Split line groups (layout blocks) into headings, list items and paragraphs.

    A list item runs on over following lines, even across layout blocks, until the next
    item, a heading or a vertical gap.
    """
    blocks: list[Block] = []
    current: list[TextLine] = []
    kind = "paragraph"
    # A bullet or 'B.' set apart may end one layout block and its text start the next.
    bullet: TextLine | None = None
    enumerator: TextLine | None = None
    for group in groups:
        if kind != "list_item" or not current or not _continues(current[-1], group[0]):
            _flush(blocks, current, kind)
            current, kind = [], "paragraph"
        for line in group:
            if not line.text.strip():
                continue
            if _ENUMERATOR_ONLY.match(line.text):
                enumerator = line  # 'B.' set apart from its title: they form one heading
                continue
            if enumerator is not None:
                box = union_box([enumerator.box, line.box])
                text = f"{enumerator.text.strip()} {line.text}"
                line = TextLine(text, box, max(line.size, enumerator.size), line.bold)
                enumerator = None
                if _title_like(line.text):
                    _flush(blocks, current, kind)
                    blocks.append(Block("heading", (line,)))
                    current, kind = [], "paragraph"
                    continue
            if _BULLET_ONLY.match(line.text):
                bullet = line  # the bullet glyph set as its own line: it opens the next item
                continue
            if bullet is not None:
                box = union_box([bullet.box, line.box])
                line = TextLine(f"{bullet.text.strip()} {line.text}", box, line.size, line.bold)
                bullet = None
            if is_heading(line, body_size):
                _flush(blocks, current, kind)
                blocks.append(Block("heading", (line,)))
                current, kind = [], "paragraph"
            elif is_list_start(line.text):
                _flush(blocks, current, kind)
                current, kind = [line], "list_item"
            else:
                current.append(line)
    _flush(blocks, current, kind)
    return _merge_heading_runs(blocks)


def _continues(prev: TextLine, line: TextLine) -> bool:
    """Whether ``line`` carries on the list item that ``prev`` ends."""
    height = max(prev.box[3] - prev.box[1], 1.0)
    gap = line.box[1] - prev.box[3]
    return -height * 0.5 < gap < height * 0.8 and not is_list_start(line.text)


def _flush(blocks: list[Block], lines: list[TextLine], kind: str) -> None:
    if lines:
        blocks.append(Block(kind, tuple(lines)))  # type: ignore[arg-type]


def _merge_heading_runs(blocks: list[Block]) -> list[Block]:
    """A heading split over two lines ('3.2' / 'Terminal Block') becomes one heading."""
    merged: list[Block] = []
    for block in blocks:
        prev = merged[-1] if merged else None
        if (
            prev is not None
            and prev.kind == "heading"
            and block.kind == "heading"
            and len(prev.text) + len(block.text) < 90
            and abs(block.lines[0].box[1] - prev.lines[-1].box[3]) < 6
        ):
            merged[-1] = Block("heading", prev.lines + block.lines)
        else:
            merged.append(block)
    return merged


def group_lines_by_gap(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    """Group OCR lines (already in reading order) into blocks by vertical gaps."""
    groups: list[list[TextLine]] = []
    for line in lines:
        if groups:
            prev = groups[-1][-1]
            height = max(prev.box[3] - prev.box[1], 1.0)
            gap = line.box[1] - prev.box[3]
            aligned = abs(line.box[0] - groups[-1][0].box[0]) < height * 3
            if -height < gap < height * 0.9 and aligned:
                groups[-1].append(line)
                continue
        groups.append([line])
    return groups


# A contents or index entry: a leader of dots or rules, then a page number ("Wiring the
# outputs ........ 83", "8.2. SETTINGS ______ 48").
_LEADER = re.compile(r"(?:[._·…]\s?){4,}\s*\d{1,4}\b")


def is_contents_line(text: str) -> bool:
    """A table-of-contents (or index) entry: it names where an answer is, never the answer,
    and a contents page names every topic of a manual, so it would out-score the page it
    points at on any question's words."""
    return _LEADER.search(text) is not None


# A contents page may print its page numbers in a column of their own, read after the
# entries ("6.8.Receiving/ Transmitting CTCSS/DCS Setting" ... "09", "10"): no entry then
# has a leader, but most of the page's lines are numbered section titles or bare page
# numbers, the numbers in reading order.
_SECTION_TITLE = re.compile(r"\s*[(（]?\d+(?:\.\d+)*[)）.]?\s*[^\W\d_]")
_PAGE_NUMBER = re.compile(r"\s*\d{1,4}\s*")
MIN_CONTENTS_ENTRIES = 8


def is_contents_page(lines: Sequence[str]) -> bool:
    """A contents page whose page numbers stand apart from its entries: at least
    ``MIN_CONTENTS_ENTRIES`` short numbered titles and as many bare numbers, nearly all in
    rising order, together half of its lines or more; or unnumbered titles each beside its
    page number (``_titles_beside_numbers``)."""
    titles = sum(1 for t in lines if len(t) < 60 and _SECTION_TITLE.match(t))
    numbers = [int(t) for t in lines if _PAGE_NUMBER.fullmatch(t)]
    if min(titles, len(numbers)) < MIN_CONTENTS_ENTRIES or titles + len(numbers) < len(lines) / 2:
        return _titles_beside_numbers(lines)
    rising = sum(b >= a for a, b in pairwise(numbers))
    return rising >= 0.8 * (len(numbers) - 1)


def _titles_beside_numbers(lines: Sequence[str]) -> bool:
    """Unnumbered entries, each on a line beside its page number ("Introduction", "2",
    "Overview drawing", "3"): at least ``MIN_CONTENTS_ENTRIES`` numbers with a short title
    next to nearly every one, together half of the page or more, the numbers rising. A
    count is not page numbers: a numbered list or a pin table counts 1, 2, 3 (every step
    one) and starts again at 1 for its next connector; page numbers skip and never fall
    back to the first page."""
    at = [i for i, t in enumerate(lines) if _PAGE_NUMBER.fullmatch(t)]
    if len(at) < MIN_CONTENTS_ENTRIES:
        return False

    def is_title(j: int) -> bool:
        return 0 <= j < len(lines) and len(lines[j]) < 60 and lines[j].lstrip()[:1].isalpha()

    beside = sum(1 for i in at if is_title(i - 1) or is_title(i + 1))
    numbers = [int(lines[i]) for i in at]
    steps = [b - a for a, b in pairwise(numbers)]
    return (
        beside >= 0.8 * len(at)
        and 2 * (len(at) + beside) >= len(lines)
        and sum(step >= 0 for step in steps) >= 0.8 * len(steps)
        and any(step != 1 for step in steps)
        and not any(b <= 1 < a for a, b in pairwise(numbers))
    )


# A date with its year, as a revision history prints it ("2015-03-03", "03/03/2015",
# "March 2015", "Sept. 2015"). The months are spelled out here rather than read from
# ``calendar``, whose names follow the process's locale (the window sets it).
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*"
_DATE = re.compile(
    r"\b(?:(?:19|20)\d\d[-./](?:0?[1-9]|1[0-2])\b(?:[-./]\d\d?)?"
    r"|\d\d?[-./]\d\d?[-./](?:19|20)\d\d"
    rf"|{_MONTHS}\.? (?:19|20)\d\d)\b"
)
_TIME_OF_DAY = re.compile(r"\b\d\d?:\d\d\b")
_YEAR = re.compile(r"(?:19|20)\d\d")  # what every date holds: most pages have too few
MIN_HISTORY_DATES = 3


def is_history_page(lines: Sequence[str]) -> bool:
    """A manual's revision history: at least ``MIN_HISTORY_DATES`` lines dated without a
    time of day (an event log's entries have one). Like a contents page, it names the
    topics of other pages ("Added the description of the Wi-Fi interface") and answers
    none of them."""
    if len(_YEAR.findall("\n".join(lines))) < MIN_HISTORY_DATES:
        return False  # a search's re-ranking asks this of every page it scores
    dated = sum(1 for t in lines if _DATE.search(t) and not _TIME_OF_DAY.search(t))
    return dated >= MIN_HISTORY_DATES


def lists_contents(lines: Sequence[str]) -> bool:
    """A contents, table or figure index page: mostly entries with leaders (at least five),
    or entries with their page numbers apart (``is_contents_page``). Its lines name the
    manual's sections; none of them opens one."""
    entries = sum(1 for t in lines if is_contents_line(t))
    return (entries >= 5 and 2 * entries >= len(lines)) or is_contents_page(lines)
