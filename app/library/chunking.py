"""Cutting pages into chunks that follow the document's structure.

A chunk never crosses a page (each keeps its page and the boxes of its lines), never
splits a table row, carries the section heading it sits under, and overlaps its
predecessor in the same section by a line or so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.library.layout import is_contents_line, is_numbered_heading, lists_contents
from app.library.models import Block, ChunkDraft, PageContent, TextLine


@dataclass(slots=True)
class _Buffer:
    page: int
    heading: str
    lines: list[TextLine] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)

    def size(self) -> int:
        return sum(len(line.text) + 1 for line in self.lines)


def chunk_pages(
    pages: Sequence[PageContent], max_chars: int = 900, overlap_lines: int = 1
) -> list[ChunkDraft]:
    """Chunks for every page, in reading order."""
    chunks: list[ChunkDraft] = []
    section, sub = "", ""
    for page in pages:
        # A contents page's entries name sections; none opens one. The page keeps its own
        # title ("Contents"), and the next page starts under none: its first heading opens
        # the next section, not the contents' last entry.
        contents = lists_contents([line.text for block in page.blocks for line in block.lines])
        if contents:
            section, sub = "", ""
        buf = _Buffer(page.number, _heading(section, sub))
        for block in page.blocks:
            if block.kind == "heading" and ((contents and section) or is_contents_line(block.text)):
                block = Block("paragraph", block.lines)
            if block.kind == "heading":
                _flush(chunks, buf)
                title = block.text.replace("\n", " ").strip()
                # Numbered titles open a section; others are sub-headings within it.
                if is_numbered_heading(title) or not section:
                    section, sub = title, ""
                else:
                    sub = title
                heading = _heading(section, sub)
                buf = _Buffer(page.number, heading, list(block.lines), {"heading"})
            elif block.kind == "table":
                _flush(chunks, buf)
                heading = _heading(section, sub)
                chunks.extend(_table_chunks(block, page.number, heading, max_chars))
                buf = _Buffer(page.number, heading)
            else:
                buf = _add_block(chunks, buf, block, max_chars, overlap_lines)
        _flush(chunks, buf)
        if contents:
            section, sub = "", ""
    return chunks


def _heading(section: str, sub: str) -> str:
    return f"{section} > {sub}" if sub and section else section or sub


def _add_block(
    chunks: list[ChunkDraft], buf: _Buffer, block: Block, max_chars: int, overlap: int
) -> _Buffer:
    block_size = sum(len(line.text) + 1 for line in block.lines)
    if buf.lines and buf.size() + block_size > max_chars and buf.kinds != {"heading"}:
        carried = buf.lines[-overlap:] if overlap else []
        _flush(chunks, buf)
        buf = _Buffer(buf.page, buf.heading, list(carried), set())
    for line in block.lines:
        if buf.lines and buf.size() + len(line.text) > max_chars:
            carried = buf.lines[-overlap:] if overlap else []
            _flush(chunks, buf)
            buf = _Buffer(buf.page, buf.heading, list(carried), set())
        buf.lines.append(line)
        # Marked per line: a buffer with no kind is dropped by _flush as heading-only.
        buf.kinds.add(block.kind)
    return buf


def _flush(chunks: list[ChunkDraft], buf: _Buffer) -> None:
    # A buffer holding only a heading is dropped: its text lives on as the next chunks' heading.
    if not buf.lines or buf.kinds <= {"heading"}:
        return
    kinds = buf.kinds - {"heading"}
    chunks.append(
        ChunkDraft(
            page=buf.page,
            text="\n".join(line.text for line in buf.lines),
            lines=tuple(buf.lines),
            heading=buf.heading,
            kind="list_item" if kinds == {"list_item"} else "paragraph",
        )
    )


def _table_chunks(block: Block, page: int, heading: str, max_chars: int) -> list[ChunkDraft]:
    """A table as one chunk, or as row groups that each repeat the header row."""
    lines = list(block.lines)
    if not lines:
        return []
    header, body = lines[0], lines[1:]
    groups: list[list[TextLine]] = []
    current: list[TextLine] = []
    size = len(header.text)
    for line in body:
        if current and size + len(line.text) + 1 > max_chars:
            groups.append(current)
            current, size = [], len(header.text)
        current.append(line)
        size += len(line.text) + 1
    if current or not groups:
        groups.append(current)
    return [
        ChunkDraft(
            page=page,
            text="\n".join(line.text for line in [header, *group]),
            lines=(header, *group),
            heading=heading,
            kind="table",
        )
        for group in groups
    ]


def embedding_text(chunk: ChunkDraft) -> str:
    """What the embedder sees: the section heading, then the chunk (a table's rows with
    their filled cells only: the empty ones keep cells under their columns for reading,
    and say nothing to a sentence embedder)."""
    text = chunk.text
    if chunk.kind == "table":
        text = "\n".join(filled_cells(line) for line in text.split("\n"))
    if chunk.heading and not text.startswith(chunk.heading):
        return f"{chunk.heading}\n{text}"
    return text


def filled_cells(row: str) -> str:
    """A table line without its empty cells ("X |  | 5" -> "X | 5")."""
    return " | ".join(cell for cell in row.split(" | ") if cell.strip())
