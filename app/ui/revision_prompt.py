"""Asking, before an import, what a file named like a manual already there should be:
the manual's newer revision, another manual beside it, or not imported at all."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from app.library.models import DocumentInfo

REVISION, KEEP_BOTH = "revision", "keep-both"


def same_named(paths: Sequence[str], documents: Sequence[DocumentInfo]) -> list[str]:
    """The PDFs among ``paths`` (folders expanded) named like a manual in the library."""
    names = {d.file_name.casefold() for d in documents}
    found = []
    for raw in paths:
        path = Path(raw)
        files = sorted(path.rglob("*.pdf")) if path.is_dir() else [path]
        found += [f.name for f in files if f.name.casefold() in names]
    return found


def ask_on_match(parent: QWidget | None, names: Sequence[str]) -> str | None:
    """'revision', 'keep-both', or None (cancel) for files named like existing manuals."""
    listed = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    box = QMessageBox(parent)
    box.setWindowTitle("Manual already in the library")
    box.setText(f"The library already has a manual named {listed}.")
    box.setInformativeText(
        "Import as its newer revision (the newest answers; the older one stays, searchable "
        "on request), or keep both as separate manuals?"
    )
    revision = box.addButton("New revision", QMessageBox.ButtonRole.AcceptRole)
    keep = box.addButton("Keep both", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(revision)
    box.exec()
    clicked = box.clickedButton()
    return REVISION if clicked is revision else KEEP_BOTH if clicked is keep else None
