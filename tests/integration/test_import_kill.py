"""A kill (SIGKILL) in the middle of an import leaves a sound library that imports again.

``python -m app import`` runs on a small manual and then a 60-page one; once its progress
on stderr shows the big one is past reading, the process is killed. The library must then
be consistent: the small manual whole, the big one absent (or, when killed while saving,
possibly whole), no stray PDF copy, and the big one importable again.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from app.library.library import Library
from tests.helpers import pdfs

REPO = Path(__file__).resolve().parents[2]
BIG_PAGES = 60

# phase to kill in -> (settings through the environment, whether the kill must land mid-way)
CASES = {
    # The real embedder: loading and running it keeps the import in this phase for seconds.
    "embedding": ({}, True),
    # Large thumbnails make rendering 60 pages take a while.
    "page images": ({"LANTERN_EMBEDDER": "hashing", "LANTERN_THUMBNAIL_WIDTH": "1024"}, True),
    # The write itself is short: the kill may land before, inside or after the transaction.
    "saving": ({"LANTERN_EMBEDDER": "hashing"}, False),
}


@pytest.fixture(scope="module")
def manuals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("kill")
    small = pdfs.text_manual_pdf(folder / "small.pdf", title="Small manual")
    big = pdfs.text_manual_pdf(folder / "big.pdf", pages=BIG_PAGES, title="Big manual")
    return small, big


def import_and_kill(
    env: dict[str, str], paths: list[Path], library: Path, phase: str
) -> tuple[int, str]:
    """Start an import, SIGKILL it at the first progress line of ``phase`` for the last file."""
    command = [sys.executable, "-m", "app", "import", *map(str, paths), "--library", str(library)]
    proc = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    watchdog = threading.Timer(400, proc.kill)
    watchdog.start()
    seen = []
    marker = f"{paths[-1].name}: {phase} "
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            seen.append(line)
            if line.startswith(marker):
                os.kill(proc.pid, signal.SIGKILL)
                break
        proc.wait(timeout=60)
    finally:
        watchdog.cancel()
        if proc.stderr is not None:
            proc.stderr.close()
    assert any(line.startswith(marker) for line in seen), "".join(seen)
    return proc.returncode, "".join(seen)


@pytest.mark.parametrize("phase", CASES)
def test_a_killed_import_leaves_a_consistent_library_that_imports_again(
    phase: str, manuals: tuple[Path, Path], cli_env: dict[str, str], tmp_path: Path
) -> None:
    overrides, must_land_mid_way = CASES[phase]
    env = {**cli_env, "LANTERN_OCR_ENGINE": "none", **overrides}
    small, big = manuals
    library_dir = tmp_path / "library"

    returncode, stderr = import_and_kill(env, [small, big], library_dir, phase)

    if must_land_mid_way:
        assert returncode == -signal.SIGKILL
        assert "imported big.pdf" not in stderr
    library = Library.open(library_dir)
    try:
        store = library.store
        assert store.check_integrity() == []
        docs = {d.file_name: d for d in store.list_documents()}
        assert docs["small.pdf"].pages == 1
        if "big.pdf" in docs:  # only a kill after the commit may leave it, and then whole
            assert phase == "saving"
            assert docs["big.pdf"].pages == BIG_PAGES
            assert store.page_chunks(docs["big.pdf"].id, BIG_PAGES)
        copies = sorted(p.name for p in library.documents_dir.iterdir())
        assert copies == sorted(f"{d.sha256}.pdf" for d in docs.values())
    finally:
        library.close()

    quick = {**env, "LANTERN_EMBEDDER": "hashing", "LANTERN_THUMBNAIL_WIDTH": "240"}
    again = subprocess.run(
        [sys.executable, "-m", "app", "import", str(big), "--library", str(library_dir)],
        cwd=REPO, env=quick, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    listed = subprocess.run(
        [sys.executable, "-m", "app", "list", "--json", "--library", str(library_dir)],
        cwd=REPO, env=quick, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    pages = {d["file_name"]: d["pages"] for d in map(json.loads, listed.stdout.splitlines())}
    assert pages == {"small.pdf": 1, "big.pdf": BIG_PAGES}
