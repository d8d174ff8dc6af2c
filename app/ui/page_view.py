"""One page image with its supporting regions highlighted; zoom (Ctrl+wheel, buttons) and
pan (drag).

The scene is in PDF points with a top-left origin, the same units as citation regions, so
a region is drawn as given. The image is rendered at ``zoom`` pixels per point and scaled
by ``1/zoom`` into the scene; the evidence pane picks ``zoom`` as the view's scale times
the screen's device pixel ratio, so each image pixel lands on one screen pixel (sharp on
high-DPI screens).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QPen, QPixmap, QWheelEvent
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QWidget,
)

MIN_SCALE, MAX_SCALE = 0.2, 8.0


class PageView(QGraphicsView):
    """Shows a page; ``scale_changed`` tells the pane when a sharper render is worth it."""

    scale_changed = Signal(float)

    def __init__(self, highlight: QColor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pageView")
        self.highlight = highlight
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(
            QPainter.RenderHint.SmoothPixmapTransform | QPainter.RenderHint.Antialiasing
        )
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.page_item = QGraphicsPixmapItem()
        self.page_item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
        self.page_item.setShapeMode(QGraphicsPixmapItem.ShapeMode.BoundingRectShape)
        self.scene().addItem(self.page_item)
        self.boxes: list[QGraphicsRectItem] = []
        self.page_size = (612.0, 792.0)
        self.fit_to_width = True

    # ---- content ---------------------------------------------------------------------------
    def set_page(self, image: QImage, zoom: float, size: tuple[float, float]) -> None:
        """Show a render of a page that is ``size`` points, made at ``zoom`` px per point."""
        new_page = size != self.page_size
        self.page_size = size
        self.page_item.setPixmap(QPixmap.fromImage(image))
        self.page_item.setScale(1.0 / zoom)
        self.scene().setSceneRect(QRectF(-12, -12, size[0] + 24, size[1] + 24))
        if new_page or self.fit_to_width:
            self.fit_width()

    def clear_page(self, size: tuple[float, float]) -> None:
        """A blank page of the right size while its image is being rendered."""
        self.page_size = size
        blank = QPixmap(max(1, int(size[0])), max(1, int(size[1])))
        blank.fill(QColor("#ffffff"))
        self.page_item.setPixmap(blank)
        self.page_item.setScale(1.0)
        self.scene().setSceneRect(QRectF(-12, -12, size[0] + 24, size[1] + 24))

    def set_regions(self, regions: Sequence[Sequence[float]]) -> None:
        """Highlight ``regions`` ([x0, y0, x1, y1] in PDF points) as translucent boxes."""
        for box in self.boxes:
            self.scene().removeItem(box)
        self.boxes = []
        fill = QColor(self.highlight)
        fill.setAlpha(70)
        edge = QColor(self.highlight)
        edge.setAlpha(220)
        for x0, y0, x1, y1 in regions:
            rect = QRectF(x0, y0, x1 - x0, y1 - y0).adjusted(-3, -2, 3, 2)
            item = self.scene().addRect(rect, QPen(edge, 1.6), QBrush(fill))
            item.setZValue(1)
            self.boxes.append(item)

    def reveal(self, regions: Sequence[Sequence[float]]) -> None:
        """Scroll so the first region sits in the upper third of the view."""
        if not regions:
            self.verticalScrollBar().setValue(0)
            return
        x0, y0, x1, _ = regions[0]
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        center_y = y0 + visible.height() / 2 - min(visible.height() / 3, 120)
        self.centerOn((x0 + x1) / 2, center_y)

    # ---- zoom ------------------------------------------------------------------------------
    def current_scale(self) -> float:
        return self.transform().m11()

    def fit_width(self) -> None:
        self.fit_to_width = True
        width = max(self.viewport().width() - 8, 50)
        self._set_scale(width / (self.page_size[0] + 24))

    def zoom_by(self, factor: float) -> None:
        self.fit_to_width = False
        self._set_scale(self.current_scale() * factor)

    def _set_scale(self, scale: float) -> None:
        scale = min(max(scale, MIN_SCALE), MAX_SCALE)
        self.resetTransform()
        self.scale(scale, scale)
        self.scale_changed.emit(scale)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(1.15 if event.angleDelta().y() > 0 else 1 / 1.15)
            return
        super().wheelEvent(event)

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)  # type: ignore[arg-type]
        if self.fit_to_width:
            self.fit_width()
