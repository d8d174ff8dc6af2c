"""Pays the window's one-time costs while it is idle, just after it first shows.

PySide6 creates Python types and enums on first use, and Qt loads glyphs and builds
style rules the first time a kind of widget is laid out and painted. The first answer
card alone cost 80-150 ms that way, a visible freeze in the middle of the first answer.
Here each kind of widget an answer or an import will need is built, painted off screen
and thrown away once, one step per turn of the event loop so no single step is long.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.agent.events import Answer, CitationOut, Decision, Done, Error, Result, Status, Token
from app.library.import_events import ImportProgress, ImportResult
from app.ui.answer_card import AnswerCard
from app.ui.import_queue import ImportRow
from app.ui.page_view import PageView

SAMPLE = (
    "From the manuals:\n- **Terminal:** AUX+ · press ✱ 2 → 13.8 V DC ±5 %, 2.2 kΩ, 25 °C "
    "“quoted” – ⚠ [1]\n\nSources:\n[1] Sample - Installation Manual p.1"
)


def _answer_events() -> list[object]:
    citation = CitationOut("sample.pdf", "Sample - Installation Manual", 1, [[0, 0, 10, 10]])
    return [
        Decision("text_search", "warm-up", {"query": "warm-up"}, 1),
        Status("warming up", "text_search"),
        Result("text_search", "1 page", [{"document": "sample.pdf", "page": 1, "score": 1.0}]),
        Error("warm-up", "visual_search", True, "none"),
        Token(SAMPLE),
        Answer(SAMPLE, [citation], False, []),
        Done(0.1, 2),
    ]


class WarmUp:
    """Runs its steps one per event-loop turn under ``host`` (a widget for sizes/style)."""

    def __init__(self, host: QWidget, page_view: PageView) -> None:
        self.host = host
        self.page_view = page_view
        self.card: AnswerCard | None = None
        self.row: ImportRow | None = None
        self.steps: list[Callable[[], None]] = [
            self._card,
            self._card_events,
            self._card_paint,
            self._import_row,
            self._regions,
            self._cleanup,
        ]

    def start(self) -> None:
        QTimer.singleShot(0, self._next)

    def _next(self) -> None:
        if not self.steps:
            return
        try:
            self.steps.pop(0)()
        except RuntimeError:  # the window closed meanwhile (its widgets are gone): stop
            self.steps.clear()
            return
        QTimer.singleShot(0, self._next)

    def _card(self) -> None:
        self.card = AnswerCard("Warm-up question?", "#2f6fde", self.host)
        self.card.hide()
        self.card.resize(520, 400)

    def _card_events(self) -> None:
        assert self.card is not None
        for event in _answer_events():
            self.card.add_event(event)
        self.card.timeline.set_expanded(True)
        self.card.timeline.rows[0].set_expanded(True)

    def _card_paint(self) -> None:
        assert self.card is not None
        self.card.grab()

    def _import_row(self) -> None:
        self.row = ImportRow("/warm-up/sample.pdf", self.host)
        self.row.hide()
        self.row.progress(ImportProgress("/warm-up/sample.pdf", "reading text", 1, 2, 1.0))
        self.row.finish(ImportResult("/warm-up/sample.pdf", "failed", "warm-up"))
        self.row.grab()

    def _regions(self) -> None:
        self.page_view.set_regions([[0.0, 0.0, 1.0, 1.0]])
        self.page_view.set_regions([])

    def _cleanup(self) -> None:
        for widget in (self.card, self.row):
            if widget is not None:
                widget.deleteLater()
        self.card = self.row = None
