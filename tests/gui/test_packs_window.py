"""Packs from the window: File > Export Pack writes one in the worker, and dropping a pack
on another window's library imports its manuals."""

from __future__ import annotations

from pathlib import Path

from app.library.library import Library
from app.library.packs import read_manifest
from app.worker.library_messages import PackDone, PackRequest
from tests.gui.test_import_drop import drop


def test_export_then_drop_the_pack_on_another_library(make_window, sample_library, tmp_path, qtbot):
    source = make_window(sample_library)
    assert {"import_pack", "export_pack", "export_selected_pack"} <= set(source.actions_by_name)
    out = tmp_path / "shop.lanternpack"
    with qtbot.waitSignal(source.controller.pack_done, timeout=30_000) as done:
        source.controller.pack(PackRequest("export", str(out)))
    reply: PackDone = done.args[0]
    assert not reply.error and "Exported 2 manual(s)" in reply.text
    assert len(read_manifest(out)["documents"]) == 2

    target = make_window(tmp_path / "crew")
    with qtbot.waitSignal(target.controller.pack_done, timeout=30_000) as done:
        drop(target, [out])
    assert not done.args[0].error, done.args[0].error
    qtbot.waitUntil(lambda: len(target.library.documents) == 2, timeout=10_000)
    names = sorted(d.file_name for d in target.library.documents)
    assert names == sorted(d.file_name for d in source.library.documents)


def test_a_bad_pack_says_why_and_changes_nothing(make_window, tmp_path, qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text: warnings.append(text))
    bad = tmp_path / "broken.lanternpack"
    bad.write_bytes(b"not a zip")
    window = make_window(tmp_path / "library")
    with qtbot.waitSignal(window.controller.pack_done, timeout=30_000):
        drop(window, [bad])
    assert warnings and "is not a Lantern pack" in warnings[0]
    assert Library.open(Path(tmp_path / "library")).store.list_documents() == []
