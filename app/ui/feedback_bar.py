"""The feedback controls under a finished answer: thumbs up and down, and "Add to
benchmark" once the answer is thumbed up.

At most one thumb is on; clicking it again clears it. The thumbs are drawn from a small
SVG path in the theme's colours rather than taken from an emoji font, which many Linux
machines lack.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap, QTransform
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QHBoxLayout, QMenu, QPushButton, QToolButton, QWidget

from app.ui.widgets import named, repolish

# A thumb and its cuff on a 24 x 24 grid (drawn for Lantern).
THUMB_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path fill="{color}" d="'
    "M2 10h4v11H2z M8 10.2 L12.3 3.1 C13.2 1.9 15.2 2.5 15 4.2 L14.3 9 H20 "
    "C21.3 9 22.2 10.2 21.9 11.4 L20.3 19.4 C20.1 20.4 19.3 21 18.3 21 H8 z"
    '"/></svg>'
)
ICON_PX = 16


def thumb_icon(color: QColor, checked_color: QColor, down: bool = False) -> QIcon:
    """A thumb (pointing down when ``down``), in ``color``, and ``checked_color`` when on."""
    icon = QIcon()
    for tint, state in ((color, QIcon.State.Off), (checked_color, QIcon.State.On)):
        for scale in (1, 2):  # sharp on high-DPI screens too
            icon.addPixmap(_thumb_pixmap(tint, ICON_PX * scale, down), QIcon.Mode.Normal, state)
    return icon


def _thumb_pixmap(color: QColor, size: int, down: bool) -> QPixmap:
    svg = THUMB_SVG.format(color=color.name())
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    QSvgRenderer(QByteArray(svg.encode())).render(painter, QRectF(0, 0, size, size))
    painter.end()
    if down:  # turned upside down, the cuff staying on the left
        pixmap = pixmap.transformed(QTransform().scale(1, -1))
    return pixmap


class FeedbackBar(QWidget):
    """Thumbs and "Add to benchmark"; the card decides what a click does."""

    rated = Signal(int)  # 1, -1, or 0 when the thumb is cleared
    benchmark_requested = Signal()
    choose_dataset_requested = Signal()

    def __init__(self, accent: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rating = 0
        self.item_id = ""
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText)
        self.up = self._thumb(thumb_icon(muted, QColor(accent)), 1, "This answer is right")
        self.down = self._thumb(
            thumb_icon(muted, QColor(accent), down=True), -1, "This answer is wrong"
        )
        self.add_button = named(QPushButton("Add to benchmark"), "benchmarkButton")
        self.add_button.setToolTip(
            "Add this question and answer to a benchmark dataset (right-click to pick the file)"
        )
        self.add_button.clicked.connect(self.benchmark_requested)
        self.add_button.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.add_button.customContextMenuRequested.connect(self._menu)
        self.add_button.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.up)
        layout.addWidget(self.down)
        layout.addSpacing(6)
        layout.addWidget(self.add_button)

    def _thumb(self, icon: QIcon, rating: int, tip: str) -> QToolButton:
        button = named(QToolButton(self), "thumbButton")
        button.setIcon(icon)
        button.setIconSize(QSize(ICON_PX, ICON_PX))
        button.setCheckable(True)
        button.setToolTip(tip)
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda _=False: self._clicked(rating))
        return button

    def _clicked(self, rating: int) -> None:
        self.set_rating(0 if self.rating == rating else rating)
        self.rated.emit(self.rating)

    def set_rating(self, rating: int) -> None:
        """Show ``rating`` (1 up, -1 down, 0 neither); the benchmark button follows a thumb up."""
        self.rating = rating
        self.up.setChecked(rating == 1)
        self.down.setChecked(rating == -1)
        for button in (self.up, self.down):
            repolish(button)
        self.add_button.setVisible(rating == 1)

    def set_adding(self) -> None:
        self.add_button.setEnabled(False)
        self.add_button.setText("Adding…")

    def set_added(self, item_id: str, dataset: str) -> None:
        """The answer is benchmark item ``item_id``: say so, and do not add it twice."""
        self.item_id = item_id
        self.add_button.setEnabled(not item_id)
        self.add_button.setText(f"In benchmark as {item_id}" if item_id else "Add to benchmark")
        if item_id:
            self.add_button.setToolTip(f"Added to {dataset} as {item_id}")

    def _menu(self, at: QPoint) -> None:
        menu = QMenu(self)
        menu.addAction("Choose the dataset file…", self.choose_dataset_requested.emit)
        menu.exec(self.add_button.mapToGlobal(at))
