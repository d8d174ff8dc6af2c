"""Answer text to the HTML the answer view shows: paragraphs, lists, bold, and citation
markers ``[n]`` turned into links (``cite:n``) the view can follow.

Plain functions, no Qt: the answer view calls them on every batch of streamed tokens, so
a half-streamed answer must format too (an unfinished ``**`` or ``[1`` stays as text).
"""

from __future__ import annotations

import html
import re

CITE = re.compile(r"\[(\d{1,2})\]")
BOLD = re.compile(r"\*\*(.+?)\*\*")
CODE = re.compile(r"`([^`]+)`")
BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
SOURCE_LINE = re.compile(r"^\[(\d{1,2})\]\s+(.*)$")
SOURCES_HEADING = re.compile(r"^\s*(sources|references)\s*:\s*$", re.IGNORECASE)


def inline(text: str, link_color: str) -> str:
    """One line: escaped, with bold, code and citation links."""
    out = html.escape(text, quote=False)
    out = BOLD.sub(r"<b>\1</b>", out)
    out = CODE.sub(r"<code>\1</code>", out)
    return CITE.sub(
        lambda m: (
            f'<a href="cite:{m.group(1)}" style="color:{link_color};text-decoration:none;'
            f'font-weight:600">[{m.group(1)}]</a>'
        ),
        out,
    )


def tidy_row(text: str) -> str:
    """A quoted table row as the answerer reads it cell by cell ("Terminal: AUX+ → Rating:
    13.8 V; Function: power out", ``extractive.table_row``), with the column headings in
    bold. The pairing itself is the answerer's: it knows when a first row is no header."""
    if " → " not in text or "|" in text:
        return text
    label, _, rest = text.partition(" → ")
    head, colon, value = label.rpartition(": ")
    cells = [f"**{head}:** {value}" if colon else label]
    for cell in rest.split("; "):
        key, colon, value = cell.partition(": ")
        cells.append(f"**{key}:** {value}" if colon else cell)
    return " · ".join(cells)


def answer_html(text: str, link_color: str = "#2f6fde") -> str:
    """The answer body as HTML; a trailing "Sources:" list is left out (the card shows
    citations as buttons), and list items become a bulleted list."""
    body, _sources = split_sources(text)
    parts: list[str] = []
    items: list[str] = []

    def close_list() -> None:
        if items:
            lis = "".join(f"<li style='margin-bottom:4px'>{i}</li>" for i in items)
            parts.append(f"<ul style='margin-top:2px;margin-left:-18px'>{lis}</ul>")
            items.clear()

    for line in body.splitlines():
        if BULLET.match(line):
            items.append(inline(tidy_row(BULLET.sub("", line, count=1)), link_color))
            continue
        close_list()
        if line.strip():
            parts.append(f"<p style='margin:0 0 6px 0'>{inline(tidy_row(line), link_color)}</p>")
    close_list()
    return "".join(parts)


def split_sources(text: str) -> tuple[str, list[tuple[int, str]]]:
    """The answer's body, and its "Sources:" lines as (number, label) when it has them."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if SOURCES_HEADING.match(line):
            sources = [SOURCE_LINE.match(ln.strip()) for ln in lines[index + 1 :]]
            found = [(int(m.group(1)), m.group(2)) for m in sources if m]
            return "\n".join(lines[:index]).rstrip(), found
    return text, []


def plain_answer(text: str) -> str:
    """The answer as plain text for the clipboard: unchanged, sources included."""
    return text.strip()
