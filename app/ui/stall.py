"""Measures how long the window's event loop goes without running: a heartbeat timer
fires every few milliseconds, and any gap beyond its interval is a stall the technician
would feel (the bar is 50 ms). Used by the stall test and ``bench/ui_stall.py``."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer


class StallMeter(QObject):
    def __init__(self, interval_ms: int = 5, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval = interval_ms / 1000
        self.gaps: list[float] = []
        self._last = 0.0
        self.timer = QTimer(self)
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._beat)

    def start(self) -> None:
        self.gaps.clear()
        self._last = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def _beat(self) -> None:
        now = time.perf_counter()
        self.gaps.append(max(0.0, now - self._last - self.interval))
        self._last = now

    @property
    def worst_ms(self) -> float:
        return max(self.gaps, default=0.0) * 1000

    def over(self, limit_ms: float) -> int:
        return sum(1 for gap in self.gaps if gap * 1000 > limit_ms)

    def percentile_ms(self, q: float) -> float:
        if not self.gaps:
            return 0.0
        ordered = sorted(self.gaps)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000
