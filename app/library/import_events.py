"""The events an import streams, kept apart from the importer so the window can share
them without importing PyMuPDF or torch."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Phase = Literal[
    "hashing", "reading text", "OCR", "embedding", "page images", "saving", "visual embedding"
]
# Phases of the whole library: rebuilding a damaged one from its PDF copies
# (app.library.recovery); storing each line's terms after an import (app.retrieval.line_index).
LibraryPhase = Literal["rebuilding", "indexing lines"]
# The reason of an "imported" result for a manual read again in place (``Importer.reread``).
READ_AGAIN = "read again"


@dataclass(frozen=True, slots=True)
class ImportProgress:
    path: str
    phase: Phase | LibraryPhase
    done: int
    total: int
    eta_s: float | None = None
    message: str = ""


@dataclass(frozen=True, slots=True)
class ImportResult:
    path: str
    status: Literal["imported", "skipped", "failed"]
    reason: str = ""
    document_id: int | None = None
    title: str = ""
    pages: int = 0
    ocr_pages: int = 0
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()


ImportEvent = ImportProgress | ImportResult
