"""The library under conditions a technician's laptop meets: a damaged database, a named
pipe among the PDFs, a folder that cannot be written, the same manual imported twice at
once. Each test reproduces a failure found by a probe before it was fixed."""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from pathlib import Path

import pytest

from app.config import Settings
from app.library.embedding import HashingEmbedder
from app.library.importer import Importer, expand_paths, import_blocking
from app.library.library import Library, writable_problem
from app.library.recovery import pending, rebuild, set_aside
from app.library.store import DB_NAME, LibraryDamaged
from tests.helpers import pdfs

SETTINGS = Settings(ocr_engine="none")


def _importer(library: Library) -> Importer:
    return Importer(library, SETTINGS, embedder=HashingEmbedder(), ocr=None)


def damage(db: Path, share: float = 1 / 3) -> None:
    """Zeros over the middle of the file, as a failing disk or a bad copy leaves it."""
    size = db.stat().st_size
    with db.open("r+b") as fh:
        fh.seek(int(size * share))
        fh.write(b"\0" * int(size * share))


@pytest.fixture
def built(tmp_path: Path) -> Path:
    """A closed library holding two manuals (five pages and one)."""
    root = tmp_path / "library"
    library = Library.open(root)
    a = pdfs.text_manual_pdf(tmp_path / "Panel Guide.pdf", pages=5)
    b = pdfs.text_manual_pdf(tmp_path / "Keypad Card.pdf", title="Keypad Card")
    assert [r.status for r in import_blocking(_importer(library), [a, b])] == ["imported"] * 2
    library.close()
    return root


def test_a_damaged_database_is_refused_on_open(built: Path) -> None:
    damage(built / DB_NAME)

    with pytest.raises(LibraryDamaged) as caught:
        Library.open(built)

    assert "is damaged" in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_damaged_library_is_kept_aside_and_rebuilt_from_its_copies(built: Path) -> None:
    damage(built / DB_NAME)
    aside = set_aside(built)
    assert (aside / DB_NAME).is_file()
    assert pending(built) == [aside]

    events = list(rebuild(built, SETTINGS, embedder=HashingEmbedder()))

    phases = [e.phase for e in events if getattr(e, "phase", "") == "rebuilding"]
    assert len(phases) == 3  # before each manual and at the end: progress
    library = Library.open(built)
    try:
        docs = {d.file_name: d.pages for d in library.store.list_documents()}
        assert library.store.check_integrity() == []
    finally:
        library.close()
    assert docs == {"Panel Guide.pdf": 5, "Keypad Card.pdf": 1}
    assert pending(built) == []
    assert (aside / DB_NAME).is_file()  # the damaged file is kept


def test_a_fifo_in_a_folder_is_never_opened(tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    pdfs.text_manual_pdf(folder / "guide.pdf")
    os.mkfifo(folder / "pipe.pdf")

    assert [p.name for p in expand_paths([folder])] == ["guide.pdf"]


@pytest.mark.timeout(30)
def test_a_fifo_given_by_name_is_refused_without_blocking(tmp_library: Library) -> None:
    fifo = tmp_library.root.parent / "pipe.pdf"
    os.mkfifo(fifo)

    [result] = import_blocking(_importer(tmp_library), [fifo])

    assert result.status == "failed"
    assert result.reason.startswith("not a regular file")


def test_an_unwritable_folder_is_one_sentence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(*args: object, **kwargs: object) -> tuple[int, str]:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)

    problem = writable_problem(tmp_path / "library")

    assert problem.startswith(f"the library folder {tmp_path / 'library'} cannot be written")
    assert "read-only disk" in problem and "--library" in problem


@pytest.mark.parametrize("code", [errno.EACCES, errno.EROFS])
def test_a_write_refused_during_import_names_the_folder(
    tmp_library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    def refuse(data: bytes, sha: str) -> Path:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(tmp_library, "keep_copy", refuse)
    pdf = pdfs.text_manual_pdf(tmp_path / "guide.pdf")

    [result] = import_blocking(_importer(tmp_library), [pdf])

    assert result.status == "failed"
    assert "unexpected" not in result.reason and "Error(" not in result.reason
    assert result.reason.startswith(f"the library folder {tmp_library.root} cannot be written")
    assert tmp_library.store.list_documents() == []


def test_the_same_manual_committed_first_by_another_import_is_present(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two imports of one manual at once: the one that commits second finds the row the
    other wrote (a UNIQUE constraint) and reports the manual present, not an error."""
    root = tmp_path / "library"
    pdf = pdfs.text_manual_pdf(tmp_path / "guide.pdf", pages=2)
    first, second = Library.open(root), Library.open(root)
    try:
        # The second import checked for the manual before the first one committed it.
        monkeypatch.setattr(second.store, "find_by_hash", _none_once(second.store.find_by_hash))
        assert import_blocking(_importer(first), [pdf])[0].status == "imported"

        [result] = import_blocking(_importer(second), [pdf])

        assert result.status == "skipped", result.reason
        assert result.reason == "already in the library as guide.pdf"
        assert len(second.store.list_documents()) == 1
    finally:
        first.close()
        second.close()


def test_opening_the_library_keeps_a_copy_another_process_is_importing(
    tmp_library: Library,
) -> None:
    sha = "ab" * 32
    tmp_library.keep_copy(b"%PDF-1.4 pending", sha)
    other = Library.open(tmp_library.root)  # e.g. `ask` while an import is saving
    other.close()
    assert tmp_library.pdf_path(sha).is_file()

    tmp_library.import_finished(sha)
    Library.open(tmp_library.root).close()
    assert not tmp_library.pdf_path(sha).exists()  # never committed: a leftover now


def test_two_threads_importing_one_manual_leave_it_once(tmp_path: Path) -> None:
    root = tmp_path / "library"
    pdf = pdfs.text_manual_pdf(tmp_path / "guide.pdf", pages=3)
    Library.open(root).close()
    statuses: list[str] = []

    def run() -> None:
        library = Library.open(root)
        try:
            statuses.extend(r.status for r in import_blocking(_importer(library), [pdf]))
        finally:
            library.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(statuses) in (["imported", "skipped"],), statuses
    library = Library.open(root)
    try:
        assert len(library.store.list_documents()) == 1
    finally:
        library.close()


def _none_once(find):  # type: ignore[no-untyped-def]
    calls = {"n": 0}

    def wrapper(sha: str):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        return None if calls["n"] == 1 else find(sha)

    return wrapper
