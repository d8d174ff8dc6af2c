"""Watched folders: new and changed PDFs are imported, removed ones flagged and kept, the
watch survives a restart and catches up on what changed while Lantern was closed."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from app.cli import run as cli
from app.config import Settings
from app.library import watch
from app.library.embedding import HashingEmbedder
from app.library.import_events import ImportResult
from app.library.importer import Importer
from app.library.library import Library
from app.library.revisions import revisions
from tests.helpers.pdfs import text_manual_pdf
from tests.unit.library.test_revisions import guide_pdf


def importer(library: Library) -> Importer:
    return Importer(library, Settings(ocr_engine="none"), embedder=HashingEmbedder(), ocr=None)


def synced(library: Library) -> list[ImportResult]:
    return [e for e in watch.sync(library, importer(library)) if isinstance(e, ImportResult)]


def test_the_watch_catches_up_after_a_restart(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    guide_pdf(shop / "Guide.pdf", 30, "C")
    (shop / "panels").mkdir()
    text_manual_pdf(shop / "panels" / "Panel.pdf")
    library = Library.open(tmp_path / "library")
    watch.add_folder(library.store, shop)
    assert {r.status for r in synced(library)} == {"imported"}
    assert len(library.store.list_documents()) == 2
    assert synced(library) == [], "nothing changed, nothing imported"
    library.close()

    # While Lantern is closed: revision D replaces C, a manual arrives, one is deleted.
    (shop / "Guide.pdf").unlink()
    guide_pdf(shop / "Guide.pdf", 50, "D")
    os.utime(shop / "Guide.pdf", ns=(1, 2_000_000_000))  # surely another mtime
    text_manual_pdf(shop / "Keypad.pdf", title="Lumen Keypad Guide")
    shutil.rmtree(shop / "panels")

    library = Library.open(tmp_path / "library")
    assert watch.folders(library.store) == [shop.resolve()], "the watch survived the restart"
    results = synced(library)
    assert sorted(Path(r.path).name for r in results) == ["Guide.pdf", "Keypad.pdf"]
    assert {r.status for r in results} == {"imported"}
    guide = [r for r in revisions(library.store) if r.file_name.startswith("Guide")]
    assert [(r.revision, r.of) for r in guide] == [(1, 2), (2, 2)], "a newer revision"
    gone = watch.missing(library.store)
    assert [Path(g.path).name for g in gone] == ["Panel.pdf"]
    names = {d.file_name for d in library.store.list_documents()}
    assert "Panel.pdf" in names, "flagged, not deleted"

    assert watch.remove_missing(library) == ["Panel.pdf"], "removed once confirmed"
    assert "Panel.pdf" not in {d.file_name for d in library.store.list_documents()}
    assert watch.missing(library.store) == []


def test_the_watcher_reports_a_pdf_dropped_into_the_folder(tmp_path: Path) -> None:
    shop = tmp_path / "shop"
    shop.mkdir()
    seen: list[Path] = []
    fired = threading.Event()
    watcher = watch.FolderWatcher(lambda f: (seen.append(f), fired.set()), settle=0.2)
    watcher.watch(shop)
    watcher.start()
    try:
        (shop / "notes.txt").write_text("not a manual")
        text_manual_pdf(tmp_path / "Panel.pdf")
        shutil.copy(tmp_path / "Panel.pdf", shop / "Panel.pdf")
        assert fired.wait(10), "no event for the new PDF"
    finally:
        watcher.stop()
    assert seen == [shop]


def test_a_folder_that_does_not_exist_is_refused(tmp_path: Path, tmp_library: Library) -> None:
    with pytest.raises(watch.WatchError, match="is not a folder"):
        watch.add_folder(tmp_library.store, tmp_path / "nowhere")


def test_watch_on_the_command_line(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    monkeypatch.setenv("LANTERN_OCR_ENGINE", "none")
    shop, lib = tmp_path / "shop", ["--library", str(tmp_path / "library"), "--quiet"]
    guide_pdf(shop / "Guide.pdf", 30, "C")
    assert cli(["watch", "add", str(shop), *lib]) == 0
    assert "imported Guide.pdf" in capsys.readouterr().err
    (shop / "Guide.pdf").unlink()
    assert cli(["watch", "sync", *lib]) == 0
    assert "watch prune" in capsys.readouterr().err
    assert cli(["watch", "list", *lib]) == 0
    out = capsys.readouterr().out
    assert str(shop.resolve()) in out and "missing since" in out
    assert cli(["watch", "prune", "--yes", *lib]) == 0
    assert "removed Guide.pdf" in capsys.readouterr().out
