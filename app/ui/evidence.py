"""The evidence pane: the pages an answer used, as images with their regions highlighted.

The cited pages come first, then the other pages the search ranked; a thumbnail strip
lists them all. Clicking a citation shows its page and scrolls to its region; previous
and next step through the manual. Images are requested from the worker at the zoom the
view needs (times the device pixel ratio) and re-requested, sharper, after zooming in.
"This is the right page" marks the page shown as the one that answers the question the
pages came from (``origin``, that question's job number).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.agent.events import Answer, CitationOut
from app.ui.page_view import PageView
from app.ui.widgets import named, short_title
from app.worker.messages import PageImage

Key = tuple[str, int]
RIGHT_PAGE_TEXT = {None: "This is the right page", False: "Saving…", True: "✓ The right page"}


@dataclass(slots=True)
class PageRef:
    """A page the answer used: its regions, and its citation numbers (empty if only found)."""

    document: str
    page: int
    regions: list[list[float]]
    numbers: list[int]


def pages_used(answer: Answer) -> list[PageRef]:
    """Cited pages (regions merged, in citation order), then the other ranked pages."""
    refs: dict[Key, PageRef] = {}
    for number, c in enumerate(answer.citations, start=1):
        ref = refs.setdefault((c.document, c.page), PageRef(c.document, c.page, [], []))
        ref.regions.extend(c.regions)
        ref.numbers.append(number)
    for p in answer.pages:
        refs.setdefault((p.document, p.page), PageRef(p.document, p.page, [], []))
    return list(refs.values())


class EvidencePane(QWidget):
    render_requested = Signal(str, int, float)  # document, page, zoom
    thumbnails_requested = Signal(object)  # list of (document, page)
    right_page_marked = Signal(int, str, int)  # origin, document, page

    def __init__(self, highlight: QColor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.refs: dict[Key, PageRef] = {}
        self.images: dict[Key, tuple[QImage, float, tuple[float, float]]] = {}
        self.page_counts: dict[str, int] = {}
        self.titles: dict[str, str] = {}
        self.current: Key | None = None
        self.origin: int | None = None  # the question the shown pages belong to
        self.marked: dict[tuple[int, str, int], bool] = {}  # -> saved (False: saving)
        self.regions: list[list[float]] = []
        self._pending: set[tuple[str, int, float]] = set()
        self._build(highlight)

    def _build(self, highlight: QColor) -> None:
        self.view = PageView(highlight, self)
        self._sharpen = QTimer(self)
        self._sharpen.setSingleShot(True)
        self._sharpen.setInterval(150)
        self._sharpen.timeout.connect(self._request_current)
        self.view.scale_changed.connect(lambda _s: self._sharpen.start())
        header = self._header()
        self.empty = named(
            QLabel(
                "Cited pages appear here, with the passages that support the answer highlighted."
            ),
            "evidenceEmpty",
        )
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.view)
        self.strip = self._strip()
        self.right_page_bar = self._right_page_bar()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addLayout(header)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.right_page_bar)
        layout.addWidget(self.strip)
        self._update_header()

    def _header(self) -> QHBoxLayout:
        """Title, page number, previous/next and zoom buttons."""
        self.title = named(QLabel("Evidence"), "evidenceTitle")
        self.page_label = named(QLabel(""), "pageLabel")
        self.prev_button = self._tool("‹", "Previous page", lambda: self.step(-1))
        self.next_button = self._tool("›", "Next page", lambda: self.step(1))
        zoom_out = self._tool("−", "Zoom out (Ctrl+-)", lambda: self.view.zoom_by(1 / 1.25))
        zoom_in = self._tool("+", "Zoom in (Ctrl+=)", lambda: self.view.zoom_by(1.25))
        fit = self._tool("Fit", "Fit the page width (Ctrl+0)", lambda: self.view.fit_width())
        header = QHBoxLayout()
        header.setContentsMargins(12, 10, 12, 6)
        header.addWidget(self.title, 1)
        for widget in (self.page_label, self.prev_button, self.next_button, zoom_out, zoom_in, fit):
            header.addWidget(widget)
        return header

    def _strip(self) -> QListWidget:
        """The thumbnails of every page the answer used, in one scrolling row."""
        strip = named(QListWidget(self), "thumbnailStrip")
        strip.setViewMode(QListWidget.ViewMode.IconMode)
        strip.setFlow(QListWidget.Flow.LeftToRight)
        strip.setWrapping(False)
        strip.setIconSize(QSize(64, 84))
        strip.setFixedHeight(128)
        strip.setSpacing(4)
        strip.itemClicked.connect(self._strip_clicked)
        strip.hide()
        return strip

    def _right_page_bar(self) -> QWidget:
        """The "This is the right page" button, for the page shown and its question."""
        bar = named(QWidget(self), "rightPageBar")
        self.right_page_hint = named(QLabel("Is this the page that answers it?"), "rightPageHint")
        self.right_page_button = named(QPushButton("This is the right page"), "rightPageButton")
        self.right_page_button.setToolTip(
            "Remember this page as the answer's source; marked pages teach the benchmark "
            "and the optimiser"
        )
        self.right_page_button.clicked.connect(self._mark_right_page)
        row = QHBoxLayout(bar)
        row.setContentsMargins(12, 4, 12, 4)
        row.addWidget(self.right_page_hint)
        row.addStretch(1)
        row.addWidget(self.right_page_button)
        bar.hide()
        return bar

    def _tool(self, text: str, tip: str, slot: object) -> QToolButton:
        button = named(QToolButton(self), "pageTool")
        button.setText(text)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    # ---- what to show ----------------------------------------------------------------------
    def show_answer(self, answer: Answer) -> None:
        """Fill the strip with the pages the answer used and show the first cited one."""
        refs = pages_used(answer)
        self.origin = None  # until the caller says which question this is
        self.refs = {(r.document, r.page): r for r in refs}
        for c in answer.citations:
            self.titles.setdefault(c.document, c.title)
        self.strip.clear()
        for ref in refs:
            self.strip.addItem(self._strip_item(ref))
        self.strip.setVisible(bool(refs))
        self.thumbnails_requested.emit([(r.document, r.page) for r in refs])
        if refs:
            self.show_page(refs[0].document, refs[0].page)

    def show_citation(self, citation: CitationOut) -> None:
        self.titles.setdefault(citation.document, citation.title)
        self.show_page(citation.document, citation.page, citation.regions)

    def show_page(self, document: str, page: int, regions: list[list[float]] | None = None) -> None:
        """Show a page, highlighting ``regions`` (or the answer's regions on that page)."""
        key = (document, page)
        ref = self.refs.get(key)
        self.current = key
        self.regions = list(regions) if regions is not None else (ref.regions if ref else [])
        self.stack.setCurrentWidget(self.view)
        cached = self.images.get(key)
        if cached is not None:
            self.view.set_page(*cached)
        else:
            self.view.clear_page(self.view.page_size)
        self.view.set_regions(self.regions)
        QTimer.singleShot(0, lambda: self.view.reveal(self.regions))
        self._select_in_strip(key)
        self._update_header()
        self._request_current()

    def step(self, delta: int) -> None:
        if self.current is None:
            return
        document, page = self.current
        target = page + delta
        if 1 <= target <= self.page_counts.get(document, target):
            self.show_page(document, target)

    # ---- images ----------------------------------------------------------------------------
    def wanted_zoom(self) -> float:
        """Pixels per point that make the image sharp at the view's scale on this screen."""
        zoom = self.view.current_scale() * self.devicePixelRatioF()
        return min(max(math.ceil(zoom * 4) / 4, 0.5), 6.0)

    def _request_current(self) -> None:
        if self.current is None:
            return
        zoom = self.wanted_zoom()
        cached = self.images.get(self.current)
        if cached is not None and cached[1] >= zoom:
            return
        request = (*self.current, zoom)
        if request not in self._pending:
            self._pending.add(request)
            self.render_requested.emit(*request)

    def on_page_ready(self, page: PageImage, image: QImage) -> None:
        self._pending.discard((page.document, page.page, page.zoom))
        key = (page.document, page.page)
        if page.error or image.isNull():
            if key == self.current:
                self.page_label.setText(f"cannot show page: {page.error or 'no image'}")
            return
        self.page_counts[page.document] = page.page_count
        self.titles[page.document] = page.title or page.document
        self.images[key] = (image, page.zoom, (page.width, page.height))
        if key == self.current:
            self.view.set_page(image, page.zoom, (page.width, page.height))
            self.view.set_regions(self.regions)
            self.view.reveal(self.regions)
            self._update_header()

    def on_thumbnails(self, images: list[tuple[str, int, QImage]]) -> None:
        icons = {(d, p): QIcon(QPixmap.fromImage(img)) for d, p, img in images}
        for row in range(self.strip.count()):
            item = self.strip.item(row)
            icon = icons.get(item.data(Qt.ItemDataRole.UserRole))
            if icon is not None:
                item.setIcon(icon)

    # ---- strip and header ------------------------------------------------------------------
    def _strip_item(self, ref: PageRef) -> QListWidgetItem:
        marks = "".join(f"[{n}]" for n in ref.numbers)
        item = QListWidgetItem(f"{marks} p.{ref.page}" if marks else f"p.{ref.page}")
        item.setData(Qt.ItemDataRole.UserRole, (ref.document, ref.page))
        item.setToolTip(f"{self.titles.get(ref.document, ref.document)}, page {ref.page}")
        item.setSizeHint(QSize(84, 112))
        return item

    def _strip_clicked(self, item: QListWidgetItem) -> None:
        document, page = item.data(Qt.ItemDataRole.UserRole)
        self.show_page(document, page)

    def _select_in_strip(self, key: Key) -> None:
        for row in range(self.strip.count()):
            item = self.strip.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == key:
                self.strip.setCurrentItem(item)
                return
        self.strip.clearSelection()

    # ---- the right page ----------------------------------------------------------------------
    def set_origin(self, origin: int | None) -> None:
        """Say which question the pages shown belong to (None: none, no marking)."""
        self.origin = origin
        self._update_right_page()

    def _mark_right_page(self) -> None:
        if self.origin is None or self.current is None:
            return
        self.marked[(self.origin, *self.current)] = False
        self._update_right_page()
        self.right_page_marked.emit(self.origin, *self.current)

    def right_page_saved(self, origin: int, document: str, page: int, ok: bool) -> None:
        """The worker stored the mark (or could not: the page can be marked again)."""
        if ok:
            self.marked[(origin, document, page)] = True
        else:
            self.marked.pop((origin, document, page), None)
        self._update_right_page()

    def _update_right_page(self) -> None:
        shown = self.origin is not None and self.current is not None
        self.right_page_bar.setVisible(shown)
        if self.origin is None or self.current is None:
            return
        state = self.marked.get((self.origin, *self.current))
        self.right_page_button.setEnabled(state is None)
        self.right_page_button.setText(RIGHT_PAGE_TEXT[state])
        self.right_page_hint.setVisible(state is None)

    def _update_header(self) -> None:
        self._update_right_page()
        has_page = self.current is not None
        for button in (self.prev_button, self.next_button):
            button.setEnabled(has_page)
        if self.current is None:
            self.title.setText("Evidence")
            self.page_label.setText("")
            return
        document, page = self.current
        title = self.titles.get(document, document)
        self.title.setText(short_title(title))
        self.title.setToolTip(f"{title}\n{document}")
        total = self.page_counts.get(document)
        self.page_label.setText(f"Page {page} of {total}" if total else f"Page {page}")

    def reset(self) -> None:
        self.refs.clear()
        self.current = None
        self.origin = None
        self.strip.clear()
        self.strip.hide()
        self.stack.setCurrentWidget(self.empty)
        self._update_header()
