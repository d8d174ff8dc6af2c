"""The window. For now a minimal one that lists the library; the full window replaces it."""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtWidgets import QApplication, QLabel, QListWidget, QMainWindow, QVBoxLayout, QWidget

from app.library.library import Library


class LibraryWindow(QMainWindow):
    """Lists the manuals of a library with their page counts and profiles."""

    def __init__(self, library: Library) -> None:
        super().__init__()
        self.setWindowTitle("Lantern")
        self.resize(900, 600)
        self.list = QListWidget()
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.addWidget(QLabel(f"Library: {library.root}"))
        layout.addWidget(self.list)
        self.setCentralWidget(central)
        self.refresh(library)

    def refresh(self, library: Library) -> None:
        self.list.clear()
        for doc in library.store.list_documents():
            ocr = f", {doc.ocr_pages} OCR'd" if doc.ocr_pages else ""
            profile = doc.profile
            self.list.addItem(
                f"{doc.title} — {doc.file_name}\n"
                f"    {doc.pages} pages{ocr} · {profile.manual_type} manual · {profile.product}"
            )
        if not self.list.count():
            self.list.addItem("No manuals yet: import PDFs with  python -m app import PATH")


def run_window(settings: Any) -> int:
    app = QApplication.instance() or QApplication(sys.argv)
    library = Library.open(settings.library_dir)
    window = LibraryWindow(library)
    window.show()
    code = app.exec()
    library.close()
    return int(code)
