"""The library sidebar: the manuals (title, product, manual type, pages, OCR'd pages), a
filter box, remove and re-index actions, the import queue, and a drop zone that says what
to do while the library is empty."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPoint, QSize, Qt, Signal, SignalInstance
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.library.models import DocumentInfo
from app.ui.import_queue import ImportQueue
from app.ui.widgets import named

DROP_TEXT = (
    "<p style='font-size:15px'><b>Drop PDF manuals here</b></p>"
    "<p>or a folder of them, anywhere on this window —<br>"
    "or choose <b>File › Import…</b> (Ctrl+O).</p>"
    "<p>Lantern reads them, OCRs scanned pages and indexes everything on this computer.</p>"
)


def describe(doc: DocumentInfo) -> tuple[str, str]:
    """The two lines under a manual's title: what it is, and its pages."""
    kind = doc.profile.manual_type
    what = [doc.profile.product] if doc.profile.product else []
    what.append(f"{kind} manual" if kind not in ("other", "datasheet") else kind)
    ocr = f" · {doc.ocr_pages} OCR'd" if doc.ocr_pages else ""
    return " · ".join(what), f"{doc.pages} pages{ocr}"


def revision_text(doc: DocumentInfo, revision: tuple[int, int] | None) -> str:
    """'Revision 2 of 2 (answers) · imported 2026-11-25', or '' for a single revision."""
    if revision is None:
        return ""
    number, of = revision
    role = "answers" if number == of else "older, searched on request"
    return f"Revision {number} of {of} ({role}) · imported {doc.imported_at[:10]}"


class DocumentRow(QWidget):
    def __init__(
        self,
        doc: DocumentInfo,
        revision: tuple[int, int] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        what, pages = describe(doc)
        title = named(QLabel(doc.title or doc.file_name), "docTitle")
        title.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 7, 10, 7)
        layout.setSpacing(1)
        layout.addWidget(title)
        for text in (what, pages, revision_text(doc, revision)):
            if not text:
                continue
            label = named(QLabel(text), "docMeta")
            label.setWordWrap(True)
            layout.addWidget(label)
        self.setToolTip(f"{doc.title}\n{doc.file_name}\nimported {doc.imported_at}")


class LibraryPanel(QWidget):
    import_requested = Signal()
    remove_requested = Signal(object)  # DocumentInfo
    reindex_requested = Signal(object)  # DocumentInfo

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.documents: list[DocumentInfo] = []
        self._build()

    def _build(self) -> None:
        self.heading = named(QLabel("Library"), "panelTitle")
        self.filter = named(QLineEdit(), "filterBox")
        self.filter.setPlaceholderText("Filter manuals")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.list = named(QListWidget(), "documentList")
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.currentItemChanged.connect(lambda *_: self._update_actions())
        self.drop_zone = named(QLabel(DROP_TEXT), "dropZone")
        self.drop_zone.setWordWrap(True)
        self.drop_zone.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.drop_zone)
        self.stack.addWidget(self.list)
        self.queue = ImportQueue(self)
        actions = self._actions()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        top = QVBoxLayout()
        top.setContentsMargins(12, 12, 12, 0)
        top.setSpacing(8)
        top.addWidget(self.heading)
        top.addWidget(self.filter)
        layout.addLayout(top)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.queue)
        layout.addLayout(actions)
        self._update_actions()

    def _actions(self) -> QHBoxLayout:
        """Import, re-index and remove buttons under the list."""
        self.import_button = named(QPushButton("Import…"), "importButton")
        self.import_button.clicked.connect(self.import_requested)
        self.reindex_button = named(QPushButton("Re-index"), "secondaryButton")
        self.reindex_button.clicked.connect(lambda: self._emit_for(self.reindex_requested))
        self.remove_button = named(QPushButton("Remove"), "secondaryButton")
        self.remove_button.clicked.connect(lambda: self._emit_for(self.remove_requested))
        actions = QHBoxLayout()
        actions.setContentsMargins(10, 6, 10, 10)
        actions.addWidget(self.import_button, 1)
        actions.addWidget(self.reindex_button)
        actions.addWidget(self.remove_button)
        return actions

    def set_documents(
        self, documents: list[DocumentInfo], revisions: Sequence[tuple[int, int, int]] = ()
    ) -> None:
        """Show the manuals; ``revisions`` (document id, revision, of) mark the documents
        of manuals that have several revisions."""
        selected = self.selected()
        by_id = {doc_id: (rev, of) for doc_id, rev, of in revisions}
        self.documents = list(documents)
        self.list.clear()
        for doc in self.documents:
            item = QListWidgetItem()
            item.setData(Qt.ItemDataRole.UserRole, doc)
            row = DocumentRow(doc, by_id.get(doc.id))
            item.setSizeHint(row.sizeHint() + QSize(0, 2))
            self.list.addItem(item)
            self.list.setItemWidget(item, row)
            if selected is not None and doc.id == selected.id:
                self.list.setCurrentItem(item)
        pages = sum(d.pages for d in self.documents)
        count = len(self.documents)
        self.heading.setText(
            f"Library  ·  {count} manual{'s' if count != 1 else ''}, {pages} pages"
            if count
            else "Library"
        )
        self.stack.setCurrentWidget(self.list if self.documents else self.drop_zone)
        self.filter.setEnabled(bool(self.documents))
        self._apply_filter(self.filter.text())
        self._update_actions()

    def selected(self) -> DocumentInfo | None:
        item = self.list.currentItem()
        return item.data(Qt.ItemDataRole.UserRole) if item is not None else None

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.list.count()):
            item = self.list.item(row)
            doc: DocumentInfo = item.data(Qt.ItemDataRole.UserRole)
            haystack = " ".join(
                [doc.title, doc.file_name, doc.profile.product, doc.profile.manual_type]
            ).lower()
            item.setHidden(bool(needle) and needle not in haystack)

    def _emit_for(self, signal: SignalInstance) -> None:
        doc = self.selected()
        if doc is not None:
            signal.emit(doc)

    def _update_actions(self) -> None:
        has = self.selected() is not None
        self.reindex_button.setEnabled(has)
        self.remove_button.setEnabled(has)

    def _context_menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        self.list.setCurrentItem(item)
        menu = QMenu(self)
        menu.addAction("Re-index", lambda: self._emit_for(self.reindex_requested))
        menu.addAction("Remove from library", lambda: self._emit_for(self.remove_requested))
        menu.exec(self.list.viewport().mapToGlobal(position))
