"""The panel's two charts, drawn with QPainter: per-category grouped bars (Hit@3, key-fact
recall, judge score) and a histogram of the questions' latencies with p50 and p95 marked.

Drawn by hand rather than with QtCharts: two simple charts do not justify another Qt
module in the app bundle, and hand-drawn ones follow the panel's colours exactly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

SERIES = ("Hit@3", "Key facts", "Judge")


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``ticks`` ticks."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def histogram(values: Sequence[float], bins: int = 10) -> tuple[float, list[int]]:
    """(bin width, counts) over [0, max]: the width is a round number of seconds."""
    if not values:
        return 1.0, []
    width = nice_step(max(values), bins)
    count = max(1, math.floor(max(values) / width) + 1)
    counts = [0] * count
    for v in values:
        counts[min(count - 1, int(v // width))] += 1
    return width, counts


def _fmt_seconds(value: float) -> str:
    """Axis labels: "0", "2", "0.5", "0.05"."""
    return f"{value:g}" if value >= 1 or value == 0 else f"{value:.2g}"


class Chart(QWidget):
    """A titled plot area with a y axis; subclasses draw inside ``plot``."""

    LEFT, RIGHT, TOP, BOTTOM = 40, 14, 34, 40

    def __init__(self, title: str, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.colors = colors
        self.setMinimumSize(240, 200)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(380, 240)

    def color(self, name: str) -> QColor:
        return QColor(self.colors[name])

    def plot(self) -> QRectF:
        return QRectF(self.rect()).adjusted(self.LEFT, self.TOP, -self.RIGHT, -self.BOTTOM)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(self.rect(), self.color("surface"))
        font = QFont(self.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(self.color("text"))
        painter.drawText(
            QRectF(12, 8, self.width() - 24, 20), Qt.AlignmentFlag.AlignLeft, self.title
        )
        painter.setFont(self.small_font())
        self.draw(painter, self.plot())
        painter.end()

    def small_font(self) -> QFont:
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1.5))
        return font

    def draw(self, painter: QPainter, plot: QRectF) -> None:
        raise NotImplementedError

    def y_axis(self, painter: QPainter, plot: QRectF, top: float, step: float, label: str) -> None:
        """Grid lines and labels from 0 to ``top``."""
        ticks = round(top / step)
        for i in range(ticks + 1):
            y = plot.bottom() - plot.height() * i / ticks
            painter.setPen(QPen(self.color("border"), 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(self.color("muted"))
            text = label.format(step * i)
            painter.drawText(
                QRectF(0, y - 8, self.LEFT - 6, 16),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                text,
            )

    def empty(self, painter: QPainter, plot: QRectF, text: str) -> None:
        painter.setPen(self.color("muted"))
        painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, text)


class CategoryBars(Chart):
    """Per category, three bars from 0 to 100%: Hit@3, key-fact recall, mean judge score."""

    def __init__(self, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__("Per category", colors, parent)
        self.figures: dict[str, dict[str, float | None]] = {}

    def set_figures(self, figures: dict[str, dict[str, float | None]]) -> None:
        self.figures = figures
        self.update()

    def series_colors(self) -> list[QColor]:
        return [self.color("accent"), self.color("success"), self.color("warning")]

    def draw(self, painter: QPainter, plot: QRectF) -> None:
        self._legend(painter)
        self.y_axis(painter, plot, 1.0, 0.25, "{:.0%}")
        if not self.figures:
            self.empty(painter, plot, "No results yet")
            return
        group = plot.width() / len(self.figures)
        bar = min(26.0, group * 0.8 / len(SERIES))
        for g, (name, values) in enumerate(self.figures.items()):
            left = plot.left() + g * group + (group - bar * len(SERIES)) / 2
            for s, (series, color) in enumerate(zip(SERIES, self.series_colors(), strict=True)):
                self._bar(
                    painter, plot, QRectF(left + s * bar, 0, bar - 2, 0), values.get(series), color
                )
            painter.setPen(self.color("text"))
            label = painter.fontMetrics().elidedText(
                name, Qt.TextElideMode.ElideRight, int(group) - 4
            )
            painter.drawText(
                QRectF(plot.left() + g * group, plot.bottom() + 4, group, 18),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                label,
            )

    def _bar(
        self, painter: QPainter, plot: QRectF, slot: QRectF, value: float | None, color: QColor
    ) -> None:
        if value is None:  # e.g. Hit@3 of unanswerable questions: there is no right page
            painter.setPen(self.color("muted"))
            painter.drawText(
                QRectF(slot.left() - 4, plot.bottom() - 16, slot.width() + 8, 14),
                Qt.AlignmentFlag.AlignCenter,
                "n/a",
            )
            return
        height = plot.height() * max(0.0, min(1.0, value))
        rect = QRectF(slot.left(), plot.bottom() - height, slot.width(), max(height, 1.0))
        painter.fillRect(rect, color)
        if slot.width() >= 18:
            painter.setPen(self.color("muted"))
            painter.drawText(
                QRectF(rect.left() - 6, rect.top() - 15, rect.width() + 12, 14),
                Qt.AlignmentFlag.AlignCenter,
                f"{100 * value:.0f}",
            )

    def _legend(self, painter: QPainter) -> None:
        metrics = painter.fontMetrics()
        x = self.width() - self.RIGHT
        for series, color in reversed(list(zip(SERIES, self.series_colors(), strict=True))):
            x -= metrics.horizontalAdvance(series) + 26
            painter.fillRect(QRectF(x, 13, 10, 10), color)
            painter.setPen(self.color("text"))
            painter.drawText(QPointF(x + 14, 22), series)


class LatencyHistogram(Chart):
    """How many questions took how long, with the p50 and p95 latencies marked."""

    def __init__(self, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__("Latency per question", colors, parent)
        self.values: list[float] = []
        self.p50: float | None = None
        self.p95: float | None = None

    def set_latencies(
        self, values: Sequence[float], p50: float | None = None, p95: float | None = None
    ) -> None:
        self.values, self.p50, self.p95 = list(values), p50, p95
        self.update()

    def draw(self, painter: QPainter, plot: QRectF) -> None:
        if not self.values:
            self.y_axis(painter, plot, 4, 1, "{:.0f}")
            self.empty(painter, plot, "No results yet")
            return
        width, counts = histogram(self.values)
        step = nice_step(max(counts), 4) if max(counts) > 4 else 1
        top = step * math.ceil(max(counts) / step)
        self.y_axis(painter, plot, top, step, "{:.0f}")
        span = width * len(counts)
        column = plot.width() / len(counts)
        for i, count in enumerate(counts):
            height = plot.height() * count / top
            rect = QRectF(plot.left() + i * column + 1, plot.bottom() - height, column - 2, height)
            painter.fillRect(rect, self.color("accent"))
        self._x_labels(painter, plot, width, len(counts))
        for name, value in (("p50", self.p50), ("p95", self.p95)):
            if value is not None:
                self._marker(painter, plot, value / span, f"{name} {value:.2f} s")

    def _x_labels(self, painter: QPainter, plot: QRectF, width: float, bins: int) -> None:
        painter.setPen(self.color("muted"))
        every = max(1, math.ceil(bins / 6))
        for i in range(0, bins + 1, every):
            x = plot.left() + plot.width() * i / bins
            painter.drawText(
                QRectF(x - 30, plot.bottom() + 4, 60, 16),
                Qt.AlignmentFlag.AlignHCenter,
                _fmt_seconds(width * i),
            )
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + 20, plot.width(), 16),
            Qt.AlignmentFlag.AlignHCenter,
            "seconds",
        )

    def _marker(self, painter: QPainter, plot: QRectF, share: float, text: str) -> None:
        x = plot.left() + plot.width() * max(0.0, min(1.0, share))
        pen = QPen(self.color("error"), 1.5, Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
        advance = painter.fontMetrics().horizontalAdvance(text)
        left = x + 4 if x + 4 + advance < plot.right() else x - 4 - advance
        top = plot.top() + (0 if text.startswith("p50") else 16)
        box = QRectF(left - 2, top, advance + 6, 15)
        background = self.color("surface")
        background.setAlpha(225)
        painter.fillRect(box, background)
        painter.setPen(self.color("error"))
        painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
