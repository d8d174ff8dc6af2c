"""Page images: small thumbnails at import, full renders on demand, cached on disk.

Renders are cached as PNG files under ``<library>/pages/<sha256>/`` named by page and
zoom, written atomically so a crash never leaves a half-written image behind.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pymupdf


class RenderError(Exception):
    """A page could not be rendered."""


def render_thumbnail(page: pymupdf.Page, width: int) -> bytes:
    """PNG bytes of the page scaled to ``width`` pixels wide."""
    import pymupdf  # imported where pages are drawn: answering a question never needs it

    zoom = width / max(page.rect.width, 1.0)
    try:
        pix = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
        return pix.tobytes("png")
    except Exception as exc:  # PyMuPDF raises plain RuntimeError/ValueError on broken content
        raise RenderError(f"page {page.number + 1}: cannot render ({exc})") from exc


def render_png(pdf_path: Path, page_number: int, zoom: float) -> bytes:
    """PNG bytes of one page (1-based) at ``zoom`` (1.0 = 72 dpi)."""
    import pymupdf

    try:
        with pymupdf.open(pdf_path) as doc:
            if not 1 <= page_number <= doc.page_count:
                raise RenderError(f"{pdf_path.name} has no page {page_number}")
            pix = doc[page_number - 1].get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False)
            return pix.tobytes("png")
    except RenderError:
        raise
    except Exception as exc:
        raise RenderError(f"{pdf_path.name} p.{page_number}: cannot render ({exc})") from exc


class PageImageCache:
    """Full-resolution page renders, made on first request and kept on disk."""

    def __init__(self, library_dir: Path) -> None:
        self.root = library_dir / "pages"

    def path_for(self, sha256: str, page_number: int, zoom: float) -> Path:
        return self.root / sha256[:16] / f"p{page_number:04d}@{zoom:g}x.png"

    def get(self, pdf_path: Path, sha256: str, page_number: int, zoom: float = 2.0) -> Path:
        """The cached render's path, rendering it now if needed."""
        target = self.path_for(sha256, page_number, zoom)
        if target.is_file():
            return target
        data = render_png(pdf_path, page_number, zoom)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
        return target

    def drop(self, sha256: str) -> None:
        folder = self.root / sha256[:16]
        if folder.is_dir():
            for file in folder.iterdir():
                file.unlink(missing_ok=True)
            folder.rmdir()
