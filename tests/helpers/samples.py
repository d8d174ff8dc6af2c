"""The sample manuals imported with the real MiniLM embedder (no OCR), once per test run.

Several test files rank over this library. The suite runs on several processes
(pytest-xdist), so the first that needs it imports it under a file lock in the run's shared
temporary folder, and every test file then works on a copy of its own.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from pathlib import Path

import pytest

from app.config import Settings
from app.library.embedding import make_embedder
from app.library.importer import Importer, import_blocking
from app.library.library import Library

MANUALS = Path(__file__).resolve().parents[2] / "manuals"


def sample_library_copy(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    """A fresh copy of the imported sample library, in a new folder named after ``name``."""
    pdfs = sorted(MANUALS.glob("*.pdf"))
    if not pdfs:
        pytest.skip("the sample manuals are not generated")
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    template = shared / "sample-library-minilm"
    with open(shared / "sample-library-minilm.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (template / "complete").is_file():
            shutil.rmtree(template, ignore_errors=True)
            library = Library.open(template / "library")
            try:
                importer = Importer(
                    library, Settings(ocr_engine="none"), embedder=make_embedder("minilm")
                )
                results = import_blocking(importer, [MANUALS])
                assert [r.status for r in results] == ["imported"] * len(pdfs), results
            finally:
                library.close()
            (template / "complete").touch()
    copy = tmp_path_factory.mktemp(name) / "library"
    shutil.copytree(template / "library", copy)
    return copy
