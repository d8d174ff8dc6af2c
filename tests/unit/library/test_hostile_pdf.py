"""A PDF's actions, JavaScript, embedded files and links are never run or followed:
importing such a manual reads its text and nothing else. MuPDF's JavaScript engine is
never enabled by PyMuPDF, Lantern never reads a link's or action's target, never extracts
an attachment, and never starts a process or opens a socket while importing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pymupdf
import pytest

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library
from tests.reliability.bad_inputs import (
    MARKER_NAME,
    _with_attachment,
    _with_javascript,
    _with_launch,
    _with_links,
)

BUILDERS = {
    "javascript": _with_javascript,
    "launch": _with_launch,
    "attachment": _with_attachment,
    "links": _with_links,
}


def test_pymupdf_opens_documents_with_javascript_off(tmp_path: Path) -> None:
    doc = pymupdf.open(_with_javascript(tmp_path / "js.pdf"))
    try:
        assert doc.xref_get_key(doc.pdf_catalog(), "OpenAction")[0] == "xref"  # it is there
        assert pymupdf.mupdf.pdf_js_supported(pymupdf._as_pdf_document(doc)) == 0
    finally:
        doc.close()


@pytest.mark.parametrize("kind", BUILDERS)
def test_importing_a_pdf_with_actions_only_reads_its_text(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "in"
    source.mkdir()
    pdf = BUILDERS[kind](source / f"{kind}.pdf")

    def no_process(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args!r}")

    for name in ("Popen", "run", "call"):
        monkeypatch.setattr(subprocess, name, no_process)
    monkeypatch.setattr(os, "system", no_process)
    monkeypatch.setattr(os, "startfile", no_process, raising=False)

    library = Library.open(tmp_path / "library")
    try:
        importer = Importer(
            library, Settings(ocr_engine="none"), embedder=HashingEmbedder(), ocr=None
        )
        [result] = import_blocking(importer, [pdf])
        text = library.store.page_text(result.document_id or 0, 1) or ""
    finally:
        library.close()

    assert result.status == "imported", result.reason
    assert "impeller seal" in text  # the text was read
    assert not any(p.name == MARKER_NAME for p in tmp_path.rglob("*"))
    kept = sorted(
        str(p.relative_to(tmp_path / "library"))
        for p in (tmp_path / "library").rglob("*")
        if p.is_file()
    )
    assert [k for k in kept if not k.startswith("library.db")] == [
        f"documents/{Path(library.pdf_path(_sha(pdf))).name}"
    ]  # no attachment, script or linked file was written


def _sha(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()
