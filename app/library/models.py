"""Plain data types the library, retrieval and agent layers share.

Coordinates are PDF points in PyMuPDF's convention: origin at the page's top-left,
y growing downwards, boxes as ``(x0, y0, x1, y1)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Box = tuple[float, float, float, float]

BlockKind = Literal["heading", "paragraph", "list_item", "table", "caption"]
ManualType = Literal["installation", "user", "datasheet", "service", "programming", "other"]


def union_box(boxes: list[Box]) -> Box:
    """Smallest box that holds every box given (boxes must not be empty)."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    box: Box


@dataclass(frozen=True, slots=True)
class TextLine:
    """One visual line of text with its box; the unit regions are built from."""

    text: str
    box: Box
    size: float = 0.0  # dominant font size, 0 when unknown (OCR)
    bold: bool = False


@dataclass(frozen=True, slots=True)
class Block:
    """A structural unit of a page: a heading, a paragraph, a list item or a whole table."""

    kind: BlockKind
    lines: tuple[TextLine, ...]
    # For tables: the rows as cell texts, kept whole so a table is one unit.
    rows: tuple[tuple[str, ...], ...] = ()

    @property
    def text(self) -> str:
        if self.kind == "table" and self.rows:
            return "\n".join(" | ".join(cell for cell in row) for row in self.rows)
        return "\n".join(line.text for line in self.lines)

    @property
    def box(self) -> Box:
        return union_box([line.box for line in self.lines])


@dataclass(frozen=True, slots=True)
class PageContent:
    """Everything extracted from one page, text layer or OCR."""

    number: int  # 1-based
    width: float
    height: float
    blocks: tuple[Block, ...]
    words: tuple[Word, ...]
    ocr: bool = False

    @property
    def lines(self) -> list[TextLine]:
        return [line for block in self.blocks for line in block.lines]

    @property
    def text(self) -> str:
        return "\n".join(block.text for block in self.blocks)


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    """A chunk cut by the chunker, before it has an id in the store."""

    page: int
    text: str
    lines: tuple[TextLine, ...]
    heading: str = ""
    kind: BlockKind = "paragraph"

    @property
    def box(self) -> Box:
        return union_box([line.box for line in self.lines])


@dataclass(frozen=True, slots=True)
class ManualProfile:
    """A short description of a manual that the agent routes questions with."""

    product: str = ""
    manual_type: ManualType = "other"
    audience: str = ""
    topics: tuple[str, ...] = ()
    summary: str = ""

    def to_dict(self) -> dict[str, object]:
        return {
            "product": self.product,
            "manual_type": self.manual_type,
            "audience": self.audience,
            "topics": list(self.topics),
            "summary": self.summary,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object] | None) -> ManualProfile:
        if not data:
            return cls()
        topics = data.get("topics") or []
        return cls(
            product=str(data.get("product", "")),
            manual_type=data.get("manual_type", "other"),  # type: ignore[arg-type]
            audience=str(data.get("audience", "")),
            topics=tuple(str(t) for t in topics) if isinstance(topics, list | tuple) else (),
            summary=str(data.get("summary", "")),
        )


@dataclass(frozen=True, slots=True)
class DocumentInfo:
    """A document as the store lists it."""

    id: int
    sha256: str
    file_name: str
    title: str
    pages: int
    ocr_pages: int
    imported_at: str
    profile: ManualProfile = field(default_factory=ManualProfile)

    def to_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "sha256": self.sha256,
            "file_name": self.file_name,
            "title": self.title,
            "pages": self.pages,
            "ocr_pages": self.ocr_pages,
            "imported_at": self.imported_at,
            "profile": self.profile.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A chunk as the store returns it."""

    id: int
    document_id: int
    page: int
    text: str
    heading: str
    kind: str
    lines: tuple[TextLine, ...]
    # What the retrieval layer stored of its lines' terms (``line_terms``), when asked
    # for and present; opaque here (``app/retrieval/line_index.py``).
    terms: str | None = None
