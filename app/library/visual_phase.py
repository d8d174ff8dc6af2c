"""The visual-embedding phase of an import: ColQwen vectors for every page lacking them.

Runs after the documents' text is committed, only when a ColQwen model is configured. It is
resumable (each small batch commits) and can be run later for documents imported before
(``python -m app reindex --visual``). With the model absent it reports why, once, and the
rest of Lantern works on text search alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pymupdf
from PIL import Image

from app.config import Settings
from app.library.library import Library

# Page renders for ColQwen: the processor downsizes to its pixel budget anyway, so a
# moderate zoom keeps rendering cheap without losing what the model can see.
RENDER_ZOOM = 1.5


def page_renderer(library: Library) -> Callable[[int, int], Image.Image]:
    """A function rendering (document id, page number) to a PIL image."""
    docs = {d.id: d for d in library.store.list_documents()}

    def render(doc_id: int, page: int) -> Image.Image:
        doc = docs.get(doc_id) or library.store.get_document(doc_id)
        if doc is None:
            raise LookupError(f"document {doc_id} is not in the library")
        with pymupdf.open(library.pdf_path(doc)) as pdf:
            pix = pdf[page - 1].get_pixmap(matrix=pymupdf.Matrix(RENDER_ZOOM, RENDER_ZOOM))
            return Image.frombytes("RGB", (pix.width, pix.height), pix.samples)

    return render


def embed_pages(
    library: Library, settings: Settings, backend: Any = None
) -> Iterator[tuple[int, int, float | None, str]]:
    """Yields (done, total, eta seconds, message) while embedding the missing pages.

    ``backend`` overrides the configured model (tests pass a fake one).
    """
    from app.library.visual_index import embed_missing_pages
    from app.runtime.colqwen import (
        ColQwenUnavailable,
        missing_weights_reason,
        resolve_model_path,
    )
    from app.runtime.colqwen_registry import colqwen_backend

    model = settings.colqwen or getattr(backend, "name", "")
    if backend is None:
        if not settings.colqwen:
            return
        reason = missing_weights_reason(
            settings.colqwen, resolve_model_path(settings.colqwen, settings.models_dir)
        )
        if reason:
            yield 0, 0, None, f"visual search unavailable: {reason}"
            return
        backend = colqwen_backend(settings)  # loads within the models' memory budget
    try:
        for event in embed_missing_pages(library.store, backend, page_renderer(library), model):
            note = f"page {event.page}: {event.error}" if event.error else ""
            yield event.done, event.total, event.eta_seconds, note
    except ColQwenUnavailable as exc:
        yield 0, 0, None, f"visual search unavailable: {exc}"
