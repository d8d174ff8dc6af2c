"""The four real manuals of ../shared/corpus through ``python -m app import`` (slow).

OCR is switched off here to keep the run short (the Ademco scan's pages are then kept
with their own text layer); OCR has tests and a benchmark of its own. So is MiniLM: these
tests are about reading real PDFs, and with MiniLM the import took 128 s on a 2-core
machine, where this whole file now takes 43 s; the real embedder's import is tested on the
sample manuals (tests/integration/test_import_cli.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.library.library import Library

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PAGES = {
    "VESTA_Hybrid_Installation_Guide_v26.pdf": 64,
    "VESTA_BOGP-3_User_Manual_rev2.0.pdf": 40,
    "VESTA_HSGW-MAX8-DT18-SF1-DUAL_User_Manual_20220811.pdf": 87,
    "Ademco_685_Digital_Alarm_Receiver_Installation_Manual_scanned.pdf": 68,
}


def app(env: dict[str, str], *args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )


@pytest.fixture(scope="module")
def corpus_library(
    corpus_dir: Path, cli_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess, dict[str, str]]:
    missing = [name for name in PAGES if not (corpus_dir / name).is_file()]
    if missing:
        pytest.skip(f"corpus files missing: {', '.join(missing)}")
    env = {**cli_env, "LANTERN_OCR_ENGINE": "none", "LANTERN_EMBEDDER": "hashing"}
    library = tmp_path_factory.mktemp("corpus") / "library"
    done = app(env, "import", *(corpus_dir / name for name in PAGES), "--library", library)
    return library, done, env


def test_the_four_manuals_import_and_list_with_their_page_counts(
    corpus_library: tuple[Path, subprocess.CompletedProcess, dict[str, str]],
) -> None:
    library, done, env = corpus_library

    assert done.returncode == 0, done.stderr[-3000:]
    listed = app(env, "list", "--json", "--library", library)
    docs = [json.loads(line) for line in listed.stdout.splitlines()]
    assert {d["file_name"]: d["pages"] for d in docs} == PAGES
    assert all(d["title"] and d["profile"]["summary"] for d in docs)


def test_the_library_is_sound_and_its_text_searchable(
    corpus_library: tuple[Path, subprocess.CompletedProcess, dict[str, str]],
) -> None:
    library = Library.open(corpus_library[0])
    try:
        store = library.store
        assert store.check_integrity() == []
        hybrid = store.get_document("VESTA_Hybrid_Installation_Guide_v26.pdf")
        assert hybrid is not None
        pages = {r[0] for r in store.db.execute(
            "SELECT c.page FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH 'J24' AND c.document_id = ?", (hybrid.id,)
        )}  # fmt: skip
        assert pages
    finally:
        library.close()


def test_the_keypad_star_key_of_the_bogp3_is_found_by_the_word_star(
    corpus_library: tuple[Path, subprocess.CompletedProcess, dict[str, str]],
) -> None:
    library = Library.open(corpus_library[0])
    try:
        store = library.store
        bogp = store.get_document("VESTA_BOGP-3_User_Manual_rev2.0.pdf")
        assert bogp is not None
        rows = store.db.execute(
            "SELECT c.page, c.text FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid"
            " WHERE chunks_fts MATCH 'star' AND c.document_id = ? ORDER BY rank",
            (bogp.id,),
        ).fetchall()
        with_glyph = [(page, text) for page, text in rows if "✱" in text]
        assert with_glyph, rows[:5]
        # "Step 1. Press and hold the ✱ key" (PDF page 9) is among them, glyph intact.
        assert any(page == 9 and "hold the ✱ key" in text for page, text in with_glyph)
        assert all("(star)" not in text for _, text in with_glyph)
    finally:
        library.close()
