"""``python -m app import / list / remove`` as a technician runs them, in subprocesses.

The sample manuals are imported once with the real embedder; the bad-input tests use the
hashing embedder so they stay quick.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from app.library.library import Library
from app.retrieval import line_index
from tests.helpers import pdfs

REPO = Path(__file__).resolve().parents[2]


def app(
    env: dict[str, str], *args: str | Path, timeout: float = 900
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def listed(env: dict[str, str], library: Path) -> list[dict]:
    done = app(env, "list", "--json", "--library", library)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def failures(stderr: str) -> dict[str, str]:
    """File name -> reason, from the 'failed   NAME: REASON' lines."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("failed "):
            name, _, reason = line.removeprefix("failed").strip().partition(": ")
            out[name] = reason
    return out


@pytest.fixture
def quick_env(cli_env: dict[str, str]) -> dict[str, str]:
    return {**cli_env, "LANTERN_EMBEDDER": "hashing", "LANTERN_OCR_ENGINE": "none"}


# ---- the sample manuals, real embedder ---------------------------------------------------


@pytest.fixture(scope="module")
def sample_library(
    sample_manuals_dir: Path, cli_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, subprocess.CompletedProcess]:
    library = tmp_path_factory.mktemp("samples") / "library"
    return library, app(cli_env, "import", sample_manuals_dir, "--library", library)


def test_the_sample_manuals_import_from_their_folder(
    sample_library: tuple[Path, subprocess.CompletedProcess], sample_manuals_dir: Path
) -> None:
    _, done = sample_library

    assert done.returncode == 0, done.stderr
    for pdf in sorted(sample_manuals_dir.glob("*.pdf")):
        with pymupdf.open(pdf) as doc:
            assert f"imported {pdf.name}: {doc.page_count} pages" in done.stderr
    assert "reading text" in done.stderr and "embedding" in done.stderr  # progress shown
    assert "indexing lines" in done.stderr  # each line's terms stored for the searches
    assert "Traceback" not in done.stderr


def test_list_json_describes_each_manual(
    sample_library: tuple[Path, subprocess.CompletedProcess],
    sample_manuals_dir: Path,
    cli_env: dict[str, str],
) -> None:
    library, _ = sample_library

    docs = {d["file_name"]: d for d in listed(cli_env, library)}

    pdf_files = sorted(sample_manuals_dir.glob("*.pdf"))
    assert sorted(docs) == [p.name for p in pdf_files]
    for pdf in pdf_files:
        doc = docs[pdf.name]
        assert {"id", "file_name", "title", "pages", "ocr_pages", "profile"} <= set(doc)
        with pymupdf.open(pdf) as opened:
            assert doc["pages"] == opened.page_count
        assert doc["ocr_pages"] == 0
        assert doc["title"]
        assert doc["profile"]["manual_type"] in ("installation", "user")
        assert doc["profile"]["topics"]
    installation = [d for n, d in docs.items() if "Installation" in n]
    assert all(d["profile"]["manual_type"] == "installation" for d in installation)


def test_the_sample_text_is_searchable_in_the_library(
    sample_library: tuple[Path, subprocess.CompletedProcess],
) -> None:
    library_dir, _ = sample_library
    library = Library.open(library_dir)
    try:
        hits = library.store.db.execute(
            "SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH 'jumper'"
        ).fetchone()[0]
        assert hits > 0
        assert library.store.embedder_name() == "all-MiniLM-L6-v2"
        assert library.store.check_integrity() == []
        assert line_index.missing(library.store) == 0
    finally:
        library.close()


def test_importing_the_same_manuals_again_finds_them_present(
    sample_library: tuple[Path, subprocess.CompletedProcess],
    sample_manuals_dir: Path,
    cli_env: dict[str, str],
) -> None:
    library, _ = sample_library
    before = listed(cli_env, library)

    done = app(cli_env, "import", *sorted(sample_manuals_dir.glob("*.pdf")), "--library", library)

    assert done.returncode == 0, done.stderr
    assert done.stderr.count("present ") == len(before)
    assert listed(cli_env, library) == before


def test_no_command_touches_the_app_data_folder(
    sample_library: tuple[Path, subprocess.CompletedProcess], cli_env: dict[str, str]
) -> None:
    assert not (Path(cli_env["XDG_DATA_HOME"]) / "Lantern").exists()


# ---- bad inputs, hashing embedder --------------------------------------------------------


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "bad"
    folder.mkdir()
    empty = folder / "empty.pdf"
    empty.write_bytes(b"")
    return {
        "not a PDF file": pdfs.not_a_pdf(folder / "invoice.pdf"),
        "the file is empty": empty,
        "truncated or damaged": pdfs.truncated_pdf(folder / "cut.pdf"),
        "password-protected": pdfs.password_pdf(folder / "locked.pdf"),
        "has no pages": pdfs.zero_page_pdf(folder / "zero.pdf"),
        "file not found": folder / "gone.pdf",
    }


def test_a_batch_reports_each_bad_file_on_one_line_and_imports_the_rest(
    quick_env: dict[str, str], bad_files: dict[str, Path], tmp_path: Path
) -> None:
    good_a = pdfs.text_manual_pdf(tmp_path / "good_a.pdf", pages=2)
    good_b = pdfs.text_manual_pdf(tmp_path / "good_b.pdf", title="Second manual")
    library = tmp_path / "library"

    done = app(quick_env, "import", good_a, *bad_files.values(), good_b, "--library", library)

    assert done.returncode == 1
    reasons = failures(done.stderr)
    assert sorted(reasons) == sorted(p.name for p in bad_files.values())
    for expected, path in bad_files.items():
        reason = reasons[path.name]
        if expected == "truncated or damaged":
            assert "truncated" in reason or "damaged" in reason, reason
        else:
            assert expected in reason, reason
    assert "Traceback" not in done.stderr
    assert [d["file_name"] for d in listed(quick_env, library)] == ["good_a.pdf", "good_b.pdf"]


def test_a_bad_file_leaves_the_library_as_it_was(
    quick_env: dict[str, str], bad_files: dict[str, Path], tmp_path: Path
) -> None:
    library = tmp_path / "library"
    good = pdfs.text_manual_pdf(tmp_path / "good.pdf", pages=2)
    assert app(quick_env, "import", good, "--library", library).returncode == 0
    before = listed(quick_env, library)
    files_before = sorted(p.name for p in (library / "documents").iterdir())

    done = app(quick_env, "import", bad_files["password-protected"], "--library", library)

    assert done.returncode == 1
    assert len(failures(done.stderr)) == 1
    assert listed(quick_env, library) == before
    assert sorted(p.name for p in (library / "documents").iterdir()) == files_before


def test_a_folder_imports_every_pdf_in_it_and_fails_if_one_is_bad(
    quick_env: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "binder"
    (folder / "sub").mkdir(parents=True)
    pdfs.text_manual_pdf(folder / "one.pdf", title="Manual One")
    pdfs.text_manual_pdf(folder / "sub" / "two.pdf", title="Manual Two")
    (folder / "readme.txt").write_text("not a manual")
    library = tmp_path / "library"

    first = app(quick_env, "import", folder, "--library", library)
    pdfs.password_pdf(folder / "three.pdf")
    second = app(quick_env, "import", folder, "--library", library)

    assert first.returncode == 0, first.stderr
    assert second.returncode == 1
    assert list(failures(second.stderr)) == ["three.pdf"]
    assert second.stderr.count("present ") == 2
    assert sorted(d["title"] for d in listed(quick_env, library)) == ["Manual One", "Manual Two"]


def test_exit_status_is_zero_when_every_file_is_imported_or_already_present(
    quick_env: dict[str, str], tmp_path: Path
) -> None:
    library = tmp_path / "library"
    old = pdfs.text_manual_pdf(tmp_path / "old.pdf")
    new = pdfs.text_manual_pdf(tmp_path / "new.pdf", pages=2)
    assert app(quick_env, "import", old, "--library", library).returncode == 0

    done = app(quick_env, "import", old, new, "--library", library, "--quiet")

    assert done.returncode == 0, done.stderr
    assert "present  old.pdf" in done.stderr
    assert "imported new.pdf: 2 pages" in done.stderr
    assert "reading text" not in done.stderr  # --quiet: results only


def test_remove_deletes_a_manual_and_its_copy_and_it_can_come_back(
    quick_env: dict[str, str], tmp_path: Path
) -> None:
    library = tmp_path / "library"
    manual = pdfs.text_manual_pdf(tmp_path / "AX-200.pdf", pages=2)
    other = pdfs.text_manual_pdf(tmp_path / "BX-10.pdf", title="BX-10 Manual")
    assert app(quick_env, "import", manual, other, "--library", library).returncode == 0

    done = app(quick_env, "remove", "AX-200.pdf", "--library", library)

    assert done.returncode == 0, done.stderr
    assert "removed AX-200.pdf" in done.stdout
    remaining = listed(quick_env, library)
    assert [d["file_name"] for d in remaining] == ["BX-10.pdf"]
    assert len(list((library / "documents").iterdir())) == 1
    again = app(quick_env, "remove", "AX-200.pdf", "--library", library)
    assert again.returncode == 1
    assert "no document matches" in again.stderr
    back = app(quick_env, "import", manual, "--library", library)
    assert back.returncode == 0 and "imported AX-200.pdf" in back.stderr
    assert app(quick_env, "remove", str(remaining[0]["id"]), "--library", library).returncode == 0
    assert [d["file_name"] for d in listed(quick_env, library)] == ["AX-200.pdf"]


def test_listing_an_empty_library_says_so(quick_env: dict[str, str], tmp_path: Path) -> None:
    library = tmp_path / "library"

    plain = app(quick_env, "list", "--library", library)

    assert plain.returncode == 0
    assert "is empty" in plain.stdout
    assert listed(quick_env, library) == []


def test_manuals_an_older_version_read_are_listed_and_read_again(
    quick_env: dict[str, str], tmp_path: Path
) -> None:
    library = tmp_path / "library"
    good = pdfs.text_manual_pdf(tmp_path / "good.pdf", pages=2)
    assert app(quick_env, "import", good, "--library", library).returncode == 0
    done = app(quick_env, "reindex", "--stale", "--library", library)
    assert done.returncode == 0 and "nothing to read again" in done.stdout
    # As a library an older version wrote: no reading recorded, another title.
    opened = Library.open(library)
    opened.store.db.execute("UPDATE documents SET extraction = 0, title = 'CONTENT'")
    opened.close()
    assert (
        "1 manual(s) were read by an older version"
        in app(quick_env, "list", "--library", library).stdout
    )

    done = app(quick_env, "reindex", "--stale", "--library", library)

    assert done.returncode == 0, done.stderr
    assert f"read again good.pdf: 2 pages; title: {pdfs.TITLE}" in done.stdout
    assert [(d["id"], d["title"]) for d in listed(quick_env, library)] == [(1, pdfs.TITLE)]
    assert "older version" not in app(quick_env, "list", "--library", library).stdout
