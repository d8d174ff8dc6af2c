"""Reading the worker's replies in the window's thread without ever blocking it.

There is no second Python thread in the window's process: it would compete for the GIL,
and on a loaded machine a thread descheduled while holding it stalls the window for a
whole time slice (measured 250-330 ms at load 7 on 2 cores). Nor does the window call a
blocking ``Connection.recv``: a reply larger than the pipe's buffer (a page's pixels)
arrives in pieces, and ``recv`` would wait for the worker to write the rest. Instead a
socket notifier wakes the window when bytes arrive; ``FrameReader`` takes what is there
(non-blocking) and unpickles only complete messages, framed as ``Connection.send``
frames them (a 4-byte big-endian length, or -1 and an 8-byte length).
"""

from __future__ import annotations

import os
import pickle
import struct
import time
from collections.abc import Iterator

from PySide6.QtCore import QObject, QSocketNotifier, QTimer, Signal
from PySide6.QtGui import QImage

from app.worker.messages import PageImage, Pixels, Thumbnails


class FrameReader:
    """Non-blocking reader of ``multiprocessing.Connection`` frames from a file descriptor."""

    def __init__(self, fd: int, chunk: int = 1 << 18) -> None:
        self.fd = fd
        self.chunk = chunk
        self.buffer = bytearray()
        self.closed = False
        os.set_blocking(fd, False)

    def read_available(self, limit: int = 1 << 20) -> None:
        """Read what the pipe holds now, up to ``limit`` bytes; sets ``closed`` at EOF."""
        taken = 0
        while taken < limit:
            try:
                data = os.read(self.fd, self.chunk)
            except BlockingIOError:
                return
            if not data:
                self.closed = True
                return
            self.buffer += data
            taken += len(data)

    def messages(self) -> Iterator[object]:
        """Every complete message in the buffer, in order."""
        while (frame := self._frame()) is not None:
            start, size = frame
            payload = bytes(self.buffer[start : start + size])
            del self.buffer[: start + size]
            yield pickle.loads(payload)

    def _frame(self) -> tuple[int, int] | None:
        if len(self.buffer) < 4:
            return None
        (size,) = struct.unpack("!i", self.buffer[:4])
        start = 4
        if size == -1:
            if len(self.buffer) < 12:
                return None
            (size,) = struct.unpack("!Q", self.buffer[4:12])
            start = 12
        return (start, size) if len(self.buffer) >= start + size else None


def to_image(pixels: Pixels | None) -> QImage:
    """Wrap decoded pixels in a QImage (one memory copy, no decoding)."""
    if pixels is None:
        return QImage()
    image = QImage(
        pixels.data, pixels.width, pixels.height, pixels.stride, QImage.Format.Format_RGB888
    )
    return image.copy()  # own the memory: the bytes object may go away


class Receiver(QObject):
    """Turns the worker's replies into signals, a bounded amount of work per wake-up."""

    received = Signal(object)
    page = Signal(object, QImage)
    thumbnails = Signal(object)  # list of (document, page, QImage)
    lost = Signal()

    def __init__(self, fd: int, parent: QObject | None = None, budget: float = 0.008) -> None:
        super().__init__(parent)
        self.reader = FrameReader(fd)
        self.budget = budget
        self.notifier = QSocketNotifier(fd, QSocketNotifier.Type.Read, self)
        self.notifier.activated.connect(self.drain)

    def drain(self) -> None:
        if not self.notifier.isEnabled():
            # Closed: a drain still queued must not read the descriptor, whose number a
            # new worker's pipe may already reuse.
            return
        deadline = time.perf_counter() + self.budget
        self.reader.read_available()
        for reply in self.reader.messages():
            self._deliver(reply)
            if time.perf_counter() > deadline:
                QTimer.singleShot(0, self.drain)  # the rest is buffered: after the loop runs
                return
        if self.reader.closed:
            self.notifier.setEnabled(False)
            self.lost.emit()

    def _deliver(self, reply: object) -> None:
        if isinstance(reply, PageImage):
            self.page.emit(reply, to_image(reply.pixels))
        elif isinstance(reply, Thumbnails):
            self.thumbnails.emit([(d, p, to_image(px)) for d, p, px in reply.images])
        else:
            self.received.emit(reply)
