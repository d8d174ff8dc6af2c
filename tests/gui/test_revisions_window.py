"""Dropping a file named like a manual in the library asks what it is, and a new revision
becomes the manual's newest, the older one kept."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from tests.gui.test_import_drop import drop
from tests.unit.library.test_revisions import guide_pdf


def test_a_same_named_drop_asks_and_imports_a_new_revision(make_window, tmp_path, qtbot):
    window = make_window(tmp_path / "library")
    drop(window, [guide_pdf(tmp_path / "c" / "Guide.pdf", 30, "C")])
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=30_000)

    asked: list[list[str]] = []
    window.choose_on_match = lambda _parent, names: asked.append(list(names)) or "revision"
    drop(window, [guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")])
    qtbot.waitUntil(lambda: len(window.library.documents) == 2, timeout=30_000)
    assert asked == [["Guide.pdf"]]
    assert sorted(d.file_name for d in window.library.documents) == [
        "Guide (rev 1).pdf",
        "Guide.pdf",
    ]
    rows = [window.library.list.itemWidget(window.library.list.item(i)) for i in range(2)]
    texts = [" ".join(lbl.text() for lbl in row.findChildren(QLabel)) for row in rows]
    assert any("Revision 2 of 2 (answers) · imported 20" in t for t in texts)
    assert any("Revision 1 of 2 (older, searched on request)" in t for t in texts)


def test_cancelling_the_question_imports_nothing(make_window, tmp_path, qtbot):
    window = make_window(tmp_path / "library")
    drop(window, [guide_pdf(tmp_path / "c" / "Guide.pdf", 30, "C")])
    qtbot.waitUntil(lambda: len(window.library.documents) == 1, timeout=30_000)
    window.choose_on_match = lambda _parent, _names: None
    drop(window, [guide_pdf(tmp_path / "d" / "Guide.pdf", 50, "D")])
    qtbot.wait(300)
    assert not window.library.queue.active()
    assert [d.file_name for d in window.library.documents] == ["Guide.pdf"]
